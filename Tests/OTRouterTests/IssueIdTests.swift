import Foundation
@testable import OTRouter
import OTSignaling
import Testing

/// reportIssue stores the report under the client's own id (the one its `reportIssue`
/// already returned) when that id is UUID-shaped and unused; anything else gets a
/// router-minted id, so a client cannot pick a path-unsafe id or overwrite a report.
@Suite struct IssueIdTests {
    private func report(_ h: Harness, _ peer: FakePeer, id: String?) -> String? {
        guard case .issueReported(let issueId)? = h.request(peer, .reportIssue(IssueReport(description: "d", stats: [], logs: [],
                                                                                           issueId: id)))
        else { return nil }
        return issueId
    }

    @Test func theClientsUUIDIsHonoured() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        let mine = UUID().uuidString.lowercased()
        #expect(report(h, a, id: mine) == mine)
        #expect(h.http("GET", "\(h.projectPath)/issues/\(mine)").status == 200)
    }

    @Test(arguments: ["../../etc/passwd", "not-a-uuid", String(repeating: "a", count: 65), "",
                      "123e4567-e89b-12d3-a456-426614174000/x", "123e4567-e89b-12d3-a456-42661417400g"])
    func anUnsafeIdIsReplaced(id: String) throws {
        let h = try Harness()
        let (a, _) = try h.join()
        let stored = try #require(report(h, a, id: id))
        #expect(stored != id)
        #expect(UUID(uuidString: stored) != nil)
        #expect(h.http("GET", "\(h.projectPath)/issues/\(stored)").status == 200)
    }

    @Test func aTakenIdIsNotOverwritten() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        let (b, _) = try h.join()
        let id = UUID().uuidString.lowercased()
        #expect(report(h, a, id: id) == id)
        let second = try #require(report(h, b, id: id))
        #expect(second != id)
        #expect(h.http("GET", "\(h.projectPath)/issues/\(id)").status == 200)
        #expect(h.http("GET", "\(h.projectPath)/issues/\(second)").status == 200)
    }

    @Test func noIdGetsAMintedOne() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        #expect(UUID(uuidString: try #require(report(h, a, id: nil))) != nil)
    }
}
