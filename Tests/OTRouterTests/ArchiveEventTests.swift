import Foundation
import OTNet
@testable import OTRouter
import OTSignaling
import Testing

@Suite struct ArchiveEventTests {
    @Test func startStopEventsAndLateJoiner() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        a.clear()
        let started = h.http("POST", "\(h.projectPath)/archive", body: #"{"name": "rec", "sessionId": "\#(h.sessionId)"}"#)
        #expect(started.status == 200)
        let id = try #require(started.object["id"] as? String)
        #expect(a.events == [.archiveStarted(WireArchive(id: id, name: "rec"))])
        let (_, late) = try h.join()
        #expect(late.archive == WireArchive(id: id, name: "rec"))
        a.clear()
        #expect(h.http("POST", "\(h.projectPath)/archive/\(id)/stop").status == 200)
        #expect(a.events == [.archiveStopped(archiveId: id)])
        let (_, later) = try h.join()
        #expect(later.archive == nil)
    }
    // archiveMode always: ArchiveRESTTests.alwaysModeStartsAtTheFirstStreamAndStopsWhenTheSessionEmpties.
}
