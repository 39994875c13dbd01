import OTRouter
import OTSignaling

/// The demos' embedded router: a throwaway project (the router and the tokens share a
/// random secret), quiet logging, and one session. Costs a router start (sockets and
/// threads) and a session create.
struct DemoRouter {
    let project: ProjectCredentials
    let router: Router
    let sessionId: String

    init() throws {
        project = ProjectCredentials.random()
        var configuration = RouterConfiguration()
        configuration.projects = [project]
        configuration.logLevel = .warning
        let router = try Router(configuration: configuration)
        do { sessionId = try router.createSession(apiKey: project.apiKey) } catch {
            router.stop()
            throw error
        }
        self.router = router
    }
}
