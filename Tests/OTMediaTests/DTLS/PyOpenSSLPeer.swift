import Foundation
import OTTestSupport

/// pyOpenSSL from PyPI (pinned), in a venv under `.build/pyopenssl-venv`: a DTLS-SRTP
/// implementation the project did not write (it bundles its own OpenSSL through
/// `cryptography`), for interop tests. Installed on first use and reused; concurrent test
/// processes take turns with a file lock. Unavailable means the test FAILS with the reason.
enum PyOpenSSLPeer {
    static let version = "26.4.0"

    static var venvPath: String { PythonSDK.packageRoot + "/.build/pyopenssl-venv" }

    /// The venv's interpreter, or why there is none.
    static let python: Result<String, PyOpenSSLUnavailable> = prepare()

    private static func prepare() -> Result<String, PyOpenSSLUnavailable> {
        switch PythonVenv.prepare(name: "pyopenssl-venv", package: "pyOpenSSL", version: version) {
        case .ready(let python): .success(python)
        case .unavailable(let reason): .failure(.init(reason: reason))
        }
    }

    /// A DTLS client over UDP: makes its own P-256 certificate, writes its fingerprint
    /// ("sha-256 AB:…") to argv[2] before its ClientHello, shakes hands with 127.0.0.1:argv[1]
    /// offering argv[3] (use_srtp), then prints JSON: the selected profile, the exporter
    /// output in hex, the server certificate's fingerprint it saw, and its own; and sends
    /// close_notify.
    static let clientScript = #"""
    import datetime, json, select, socket, sys, time
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    from OpenSSL import SSL, crypto

    port, fingerprint_path, profiles = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    def sdp(digest): return "sha-256 " + ":".join("%02X" % b for b in digest)

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pyopenssl-client")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    own = sdp(cert.fingerprint(hashes.SHA256()))
    with open(fingerprint_path + ".tmp", "w") as f: f.write(own)
    import os; os.rename(fingerprint_path + ".tmp", fingerprint_path)

    ctx = SSL.Context(SSL.DTLS_METHOD)
    ctx.set_min_proto_version(0xFEFD); ctx.set_max_proto_version(0xFEFD)
    ctx.use_certificate(crypto.X509.from_cryptography(cert))
    ctx.use_privatekey(crypto.PKey.from_cryptography_key(key))
    ctx.set_verify(SSL.VERIFY_PEER, lambda conn, c, errno, depth, ok: True)
    ctx.set_tlsext_use_srtp(profiles.encode())
    conn = SSL.Connection(ctx, None)
    conn.set_connect_state()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect(("127.0.0.1", port))
    sizes = []
    def flush():
        while True:
            try: data = conn.bio_read(65536)
            except SSL.WantReadError: return
            if not data: return
            sizes.append(len(data)); sock.send(data)

    deadline = time.monotonic() + 15
    done = False
    while not done:
        if time.monotonic() > deadline: sys.exit("handshake timed out")
        try:
            conn.do_handshake(); done = True
        except SSL.WantReadError:
            pass
        flush()
        if done: break
        wait = conn.DTLSv1_get_timeout() or 0.05
        ready, _, _ = select.select([sock], [], [], min(wait, 0.2))
        if ready: conn.bio_write(sock.recv(65536))
        else: conn.DTLSv1_handle_timeout(); flush()

    profile = conn.get_selected_srtp_profile().decode()
    length = 56 if profile == "SRTP_AEAD_AES_128_GCM" else 60
    exported = conn.export_keying_material(b"EXTRACTOR-dtls_srtp", length)
    peer = conn.get_peer_certificate().to_cryptography()
    print(json.dumps({"profile": profile, "exporter": exported.hex(), "serverFingerprint": sdp(peer.fingerprint(hashes.SHA256())),
                      "ownFingerprint": own, "sent": sizes}))
    sys.stdout.flush()
    try: conn.shutdown()
    except SSL.Error: pass
    flush()
    """#
}

struct PyOpenSSLUnavailable: Error, CustomStringConvertible {
    let reason: String
    var description: String { "pyOpenSSL is not available: \(reason)" }
}
