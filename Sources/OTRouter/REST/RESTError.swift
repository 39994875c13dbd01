/// A REST failure: the HTTP status and the message for the JSON body
/// `{"code": status, "message": ...}` (the Python SDK reads `message` for archives).
struct RESTError: Error, Equatable {
    var status: Int
    var message: String

    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
