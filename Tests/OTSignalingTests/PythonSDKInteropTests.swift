import Foundation
import Testing
import OTTestSupport
@testable import OTSignaling

/// A missing SDK fails the run wherever it is required (scripts/test, CI); a bare
/// `swift test` without it skips the interop suites instead.
@Suite struct PythonSDKAvailabilityTests {
    @Test func sdkIsInstalledWhereTheRunRequiresIt() {
        #expect(PythonSDK.isReady || !PythonSDK.isRequired, "\(PythonSDK.unavailableReason ?? "")")
    }
}

/// OTKit against the real `opentok` 3.15.0 Python server SDK and its PyJWT.
@Suite(.enabled(if: PythonSDK.shouldRun, "the opentok Python SDK could not be installed (PyPI unreachable?) and OTKIT_REQUIRE_DEPENDENCIES is not set"),
       .serialized)
struct PythonSDKInteropTests {
    static let generateScript = """
    import json, sys, opentok
    req = json.load(sys.stdin)
    c = opentok.Client(req["apiKey"], req["apiSecret"])
    roles = {"publisher": opentok.Roles.publisher, "subscriber": opentok.Roles.subscriber,
             "moderator": opentok.Roles.moderator, "publisheronly": opentok.Roles.publisher_only}
    out = []
    for t in req["tokens"]:
        try:
            out.append({"token": c.generate_token(t["sessionId"], role=roles[t["role"]], expire_time=t["expireTime"],
                        data=t["data"], initial_layout_class_list=t["layout"], use_jwt=t["jwt"])})
        except Exception as e:
            out.append({"error": str(e)})
    print(json.dumps(out))
    """

    @Test func sdkTokensForAnOTKitSessionVerify() throws {
        let session = try OpenTokSessionID.create(apiKey: Fixtures.credentials.apiKey).rawValue
        let now = UnixTime.now()
        var requests: [[String: Any]] = []
        for role in Role.allCases {
            for jwt in [true, false] {
                requests.append(["sessionId": session, "role": role.rawValue, "expireTime": now + 3600,
                                 "data": #"{"name":"Zoë","id":"a&b=c"}"#, "layout": ["focus", "big"], "jwt": jwt])
            }
        }
        let input: [String: Any] = ["apiKey": "12345678", "apiSecret": Fixtures.credentials.apiSecret, "tokens": requests]
        let output = try #require(try PythonSDK.json(Self.generateScript, input: input) as? [[String: String]])
        try #require(output.count == requests.count)
        for (request, result) in zip(requests, output) {
            let token = try #require(result["token"], "SDK refused: \(result["error"] ?? "")")
            let grant = try OpenTokToken.verify(token, credentials: Fixtures.credentials, sessionID: session)
            #expect(grant.format == ((request["jwt"] as! Bool) ? .jwt : .t1))
            #expect(grant.role.rawValue == request["role"] as! String)
            #expect(grant.expireTime == now + 3600)
            #expect(grant.connectionData == #"{"name":"Zoë","id":"a&b=c"}"#)
            #expect(grant.initialLayoutClassList == ["focus", "big"])
            #expect(throws: OTSignalingError.badSignature) {
                try OpenTokToken.verify(token, credentials: ProjectCredentials(apiKey: "12345678", apiSecret: "other"), sessionID: session)
            }
        }
    }

    /// The SDK's own session-id check accepts OTKit's ids for the right key only.
    @Test func sdkChecksOTKitSessionIDsAgainstItsKey() throws {
        let ours = try OpenTokSessionID.create(apiKey: "12345678").rawValue
        let theirs = try OpenTokSessionID.create(apiKey: "87654321").rawValue
        let requests: [[String: Any]] = [ours, theirs].map {
            ["sessionId": $0, "role": "publisher", "expireTime": UnixTime.now() + 60, "data": "", "layout": [String](), "jwt": true]
        }
        let input: [String: Any] = ["apiKey": "12345678", "apiSecret": Fixtures.credentials.apiSecret, "tokens": requests]
        let output = try #require(try PythonSDK.json(Self.generateScript, input: input) as? [[String: String]])
        #expect(output.first?["token"] != nil)
        #expect(output.last?["error"]?.contains("does not belong to the api_key 12345678") == true)
    }

    static let decodeScript = """
    import json, sys, jwt, base64, hmac, hashlib, urllib.parse
    req = json.load(sys.stdin)
    secret = req["apiSecret"]
    out = []
    for tok in req["tokens"]:
        if tok.startswith("T1=="):
            raw = base64.b64decode(tok[4:], validate=True).decode("utf-8")
            head, data = raw.split(":", 1)
            h = dict(urllib.parse.parse_qsl(head))
            good = hmac.new(secret.encode(), data.encode(), hashlib.sha1).hexdigest()
            out.append({"partner_id": h["partner_id"], "sig_ok": hmac.compare_digest(h["sig"], good),
                        "claims": dict(urllib.parse.parse_qsl(data, keep_blank_values=True))})
        else:
            claims = jwt.decode(tok, secret, algorithms=["HS256"])
            out.append({"partner_id": claims["iss"], "sig_ok": True, "claims": claims})
    print(json.dumps(out))
    """

    @Test(arguments: TokenFormat.allCases)
    func otkitTokensDecodeInPython(format: TokenFormat) throws {
        let now = UnixTime.now()
        let tokens = try Role.allCases.map {
            try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials, role: $0,
                                      expireTime: now + 7200, connectionData: "userId=7 & name=Zoë",
                                      initialLayoutClassList: ["focus"], format: format, now: now, nonce: 123_456)
        }
        let input: [String: Any] = ["apiSecret": Fixtures.credentials.apiSecret, "tokens": tokens]
        let output = try #require(try PythonSDK.json(Self.decodeScript, input: input) as? [[String: Any]])
        try #require(output.count == tokens.count)
        for (role, decoded) in zip(Role.allCases, output) {
            #expect(decoded["partner_id"] as? String == "12345678")
            #expect(decoded["sig_ok"] as? Bool == true)
            let claims = try #require(decoded["claims"] as? [String: Any])
            #expect(claims["session_id"] as? String == Fixtures.sessionID)
            #expect(claims["role"] as? String == role.rawValue)
            #expect(claims["connection_data"] as? String == "userId=7 & name=Zoë")
            #expect(claims["initial_layout_class_list"] as? String == "focus")
            switch format {
            case .jwt:
                #expect((claims["exp"] as? NSNumber)?.int64Value == now + 7200)
                #expect((claims["nonce"] as? NSNumber)?.intValue == 123_456)
                #expect(claims["scope"] as? String == "session.connect")
                #expect(claims["ist"] as? String == "project")
            case .t1:
                #expect(claims["expire_time"] as? String == String(now + 7200))
                #expect(claims["create_time"] as? String == String(now))
                #expect(claims["nonce"] as? String == "123456")
            }
        }
    }

    static let headerScript = """
    import json, sys, opentok
    req = json.load(sys.stdin)
    c = opentok.Client(req["apiKey"], req["apiSecret"])
    out = [c.get_headers()["X-OPENTOK-AUTH"]]
    c.jwt_livetime = 10
    out.append(c.get_headers()["X-OPENTOK-AUTH"])
    print(json.dumps(out))
    """

    @Test func sdkAuthHeaderVerifiesWithProjectJWT() throws {
        let input: [String: Any] = ["apiKey": "12345678", "apiSecret": Fixtures.credentials.apiSecret]
        let headers = try #require(try PythonSDK.json(Self.headerScript, input: input) as? [String])
        try #require(headers.count == 2)
        let now = UnixTime.now()
        let standard = try ProjectJWT.verify(headers[0], credentials: Fixtures.credentials, now: now)
        #expect(standard.expireTime - standard.issuedAt == 180)
        #expect(standard.apiKey == "12345678")
        #expect(standard.jti?.hasPrefix("0.") == true)
        // The SDK's jwt_livetime = 10 (minutes) signs a 600 s JWT: over the default 5-minute
        // limit, it is refused; a router configured for 10 minutes takes it.
        #expect(throws: OTSignalingError.lifetimeTooLong(lifetime: 600, limit: ProjectJWT.defaultMaximumLifetime)) {
            try ProjectJWT.verify(headers[1], credentials: Fixtures.credentials, now: now)
        }
        let long = try ProjectJWT.verify(headers[1], credentials: Fixtures.credentials, now: now, maximumLifetime: 600)
        #expect(long.expireTime - long.issuedAt == 600)
        #expect(throws: OTSignalingError.expired(expireTime: standard.expireTime, now: standard.expireTime + 30)) {
            try ProjectJWT.verify(headers[0], credentials: Fixtures.credentials, now: standard.expireTime + 30)
        }
        #expect(throws: OTSignalingError.badSignature) {
            try ProjectJWT.verify(headers[0], credentials: ProjectCredentials(apiKey: "12345678", apiSecret: "wrong"), now: now)
        }
        #expect(throws: OTSignalingError.wrongAPIKey(expected: "87654321", actual: "12345678")) {
            try ProjectJWT.verify(headers[0], credentials: Fixtures.otherProject, now: now)
        }
    }

    static let pyjwtScript = """
    import json, sys, jwt
    req = json.load(sys.stdin)
    print(json.dumps(jwt.decode(req["jwt"], req["apiSecret"], algorithms=["HS256"])))
    """

    @Test func otkitAuthHeaderDecodesWithPyJWT() throws {
        let now = UnixTime.now()
        let header = ProjectJWT.sign(credentials: Fixtures.credentials, now: now, jti: "j-1")
        let input: [String: Any] = ["jwt": header, "apiSecret": Fixtures.credentials.apiSecret]
        let claims = try #require(try PythonSDK.json(Self.pyjwtScript, input: input) as? [String: Any])
        #expect(claims["ist"] as? String == "project")
        #expect(claims["iss"] as? String == "12345678")
        #expect(claims["jti"] as? String == "j-1")
        #expect((claims["exp"] as? NSNumber)?.int64Value == now + 180)
    }
}
