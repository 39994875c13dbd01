import Glibc

/// C strings handed to libwebsockets at context creation (protocol names, interface,
/// vhost name, certificate paths, ALPN): lws keeps the pointers, so they live in here
/// until the context has been destroyed and the store is released.
final class CStringStore {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    /// A copy of `text` that stays valid until the store goes away.
    func keep(_ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text)!
        pointers.append(copy)
        return UnsafePointer(copy)
    }

    deinit { pointers.forEach { free($0) } }
}
