import OTNet
import Testing

@Suite struct HTTPMessageTests {
    // The OpenTok Python SDK parses a session/create body as JSON only when the header is
    // exactly "application/json"; a charset suffix makes it fall back to XML.
    @Test func jsonResponsesCarryTheBareContentType() {
        let response = HTTPResponse.json(200, "[]")
        #expect(response.contentType == "application/json")
        #expect(response.body == Array("[]".utf8))
    }

    @Test func queryValuesAreLookedUpByName() {
        let request = HTTPRequest(method: "GET", path: "/v2/project/1/archive",
                                  query: [("offset", "5"), ("count", "10"), ("offset", "7")])
        #expect(request.queryValue("offset") == "5")
        #expect(request.queryValue("count") == "10")
        #expect(request.queryValue("sessionId") == nil)
    }
}
