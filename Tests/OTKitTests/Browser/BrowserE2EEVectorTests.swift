import Foundation
import OTMedia
import OTTestSupport
import Testing

/// otkit.js's frame cryptor, run in real Chromium with its WebCrypto, against RFC 9605
/// Appendix C.4 (cipher suite 0x0004) byte for byte, and its clear-prefix rule against
/// OTMedia's `SFrameFrameLayout`: the Worker's own functions (`derive`, `nonce`,
/// `writeHeader`, `readHeader`, `clearBytes`), taken from web/otkit.js and exported to the
/// page; and its header parser on 20,000 random inputs (it never throws, and accepts only
/// the one encoding of what it returns). The live interop is `BrowserE2EETests`. A machine without Chromium fails.
@Suite struct BrowserE2EEVectorTests {
    /// RFC 9605 C.4 (AES_128_GCM_SHA256_128): KID 0x123, CTR 0x4567.
    enum C4 {
        static let baseKey = "000102030405060708090a0b0c0d0e0f"
        static let salt = "75234edefe07819026751816"
        static let metadata = "4945544620534672616d65205747"
        static let nonce = "75234edefe07819026755d71"
        static let aad = "99012345674945544620534672616d65205747"
        static let plaintext = "64726166742d696574662d736672616d652d656e63"
        static let ciphertext = "9901234567b7412c2513a1b66dbb48841bbaf17f598751176ad847681a69c6d0b091c07018ce4adb34eb"
    }

    /// `sframeWorker`'s source from web/otkit.js, with its inner functions exported to `globalThis.__sframe`.
    static func workerSource() throws -> String {
        let text = try String(contentsOf: OTKitJSRouteTests.sourceFile, encoding: .utf8)
        let start = try #require(text.range(of: "function sframeWorker() {"), "web/otkit.js has sframeWorker")
        var depth = 0
        var index = text.index(before: start.upperBound)  // the opening brace
        while index < text.endIndex {
            if text[index] == "{" { depth += 1 } else if text[index] == "}" { depth -= 1; if depth == 0 { break } }
            index = text.index(after: index)
        }
        #expect(depth == 0, "sframeWorker's braces balance")
        return String(text[start.lowerBound..<index])
            + "\n  globalThis.__sframe = { derive, nonce, writeHeader, readHeader, clearBytes };\n}\nsframeWorker();\n"
    }

    struct Result: Decodable {
        var salt: String
        var nonce: String
        var aad: String
        var ciphertext: String
        var opened: String
        var parsed: [String]
        var headers: [String]
        var nonMinimalRefused: Bool
        var clear: [Int]
        var parsedRandom: Int
        var badRandom: Int
    }

    /// (KID, CTR, encoding) rows of RFC 9605 C.1, spanning inline, 1-byte and 8-byte forms.
    static let headers: [(UInt64, UInt64, String)] = [
        (0, 0, "00"), (0, 7, "07"), (7, 0, "70"), (0, 8, "0808"), (8, 0, "8008"), (0, 255, "08ff"), (0, 256, "090100"),
        (0x123, 0x4567, "9901234567"), (UInt64.max, UInt64.max, "ffffffffffffffffffffffffffffffffff"),
    ]

    /// Frames whose clear prefix both sides must agree on: (first byte, length).
    static let frames: [(UInt8, Int)] = [(0x00, 0), (0x00, 5), (0x00, 30), (0x01, 2), (0x01, 30), (0x10, 30), (0x11, 30)]

    @Test func theBrowsersCryptorMatchesRFC9605AndTheNativeLayout() throws {
        let headerRows = Self.headers.map { "[\($0.0)n, \($0.1)n]" }.joined(separator: ", ")
        let frameRows = Self.frames.map { "[\($0.0), \($0.1)]" }.joined(separator: ", ")
        let page = """
        <!doctype html><meta charset=utf-8><title>sframe vectors</title>
        <script>
        \(try Self.workerSource())
        const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
        const unhex = (h) => new Uint8Array(h.match(/../g).map((x) => parseInt(x, 16)));
        window.run = async () => {
          const { derive, nonce, writeHeader, readHeader, clearBytes } = globalThis.__sframe;
          const hkdf = await crypto.subtle.importKey('raw', unhex('\(C4.baseKey)'), 'HKDF', false, ['deriveBits']);
          const material = await derive(hkdf, 0x123n);
          const iv = nonce(material.salt, 0x4567n);
          const buffer = new Uint8Array(17), length = writeHeader(buffer, 0, 0x123n, 0x4567n), header = buffer.subarray(0, length);
          const aad = new Uint8Array([...header, ...unhex('\(C4.metadata)')]);
          const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad, tagLength: 128 }, material.key, unhex('\(C4.plaintext)'));
          const wire = unhex('\(C4.ciphertext)');
          const parsed = readHeader(wire, 0);
          const opened = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce(material.salt, parsed.ctr), additionalData: aad, tagLength: 128 },
            material.key, wire.subarray(parsed.length));
          const headers = [\(headerRows)].map(([kid, ctr]) => { const b = new Uint8Array(17); return hex(b.subarray(0, writeHeader(b, 0, kid, ctr))); });
          const clear = [\(frameRows)].flatMap(([first, size]) => {
            const frame = new Uint8Array(size); if (size > 0) frame[0] = first;
            return [clearBytes(frame, true), clearBytes(frame, false)];
          });
          // Random bytes from the network: readHeader never throws, and what it accepts fits
          // the bytes and is the one encoding writeHeader gives (20,000 inputs of 0-20 bytes).
          let parsedRandom = 0, badRandom = 0;
          for (let i = 0; i < 20000; i += 1) {
            const input = crypto.getRandomValues(new Uint8Array(i % 21));
            try {
              const h = readHeader(input, 0);
              if (h === null) continue;
              parsedRandom += 1;
              const again = new Uint8Array(17), n = writeHeader(again, 0, h.kid, h.ctr);
              if (n !== h.length || h.length > input.length || hex(again.subarray(0, n)) !== hex(input.subarray(0, n))) badRandom += 1;
            } catch (error) { badRandom += 1; }
          }
          return { parsedRandom, badRandom, salt: hex(material.salt), nonce: hex(iv), aad: hex(aad), ciphertext: hex(header) + hex(sealed),
            opened: hex(opened), parsed: [parsed.kid.toString(16), parsed.ctr.toString(16), String(parsed.length)], headers,
            nonMinimalRefused: readHeader(unhex('0805'), 0) === null && readHeader(unhex('8001'), 0) === null && readHeader(unhex('99'), 0) === null,
            clear };
        };
        window.ready = true;
        </script>
        """
        let server = try ChromiumPageServer(pages: ["vectors.html": page])
        defer { server.stop() }
        let browser = try ChromiumBrowser()
        defer { browser.close() }
        let tab = try browser.openPage()
        try tab.navigate(server.url("vectors.html"))
        try tab.waitFor("window.ready === true", what: "the vector page's script to run")
        let result = try tab.evaluate("run()", as: Result.self)

        // The key is not extractable: the ciphertext below is its check.
        #expect(result.salt == C4.salt, "sframe_salt \(result.salt)")
        #expect(result.nonce == C4.nonce && result.aad == C4.aad)
        #expect(result.ciphertext == C4.ciphertext, "sealed: \(result.ciphertext)")
        #expect(result.opened == C4.plaintext && result.parsed == ["123", "4567", "5"])
        #expect(result.headers == Self.headers.map(\.2), "headers: \(result.headers)")
        #expect(result.nonMinimalRefused, "a header not in its minimal form, or truncated, is refused")
        #expect(result.badRandom == 0 && result.parsedRandom > 1000, "random input: \(result.parsedRandom) parsed, \(result.badRandom) wrong or thrown")
        let native = Self.frames.flatMap { first, size -> [Int] in
            var frame = [UInt8](repeating: 0, count: size)
            if size > 0 { frame[0] = first }
            return [frame.withUnsafeBytes { SFrameFrameLayout.vp8ClearBytes($0) }, SFrameFrameLayout.opusClearBytes]
        }
        #expect(result.clear == native, "clear prefixes: browser \(result.clear), native \(native)")
    }
}
