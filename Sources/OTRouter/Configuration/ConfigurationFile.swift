import Foundation
import OTSignaling

/// Reads the router's JSON configuration file onto a ``RouterConfiguration``, naming the
/// file and field in every error. Unknown keys are refused (a typo must not silently
/// leave a default in place).
enum ConfigurationFile {
    struct Model: Decodable {
        struct TLS: Decodable { var certificate: String?; var privateKey: String? }
        struct Project: Decodable { var apiKey: String; var apiSecret: String }
        var host: String?
        var port: Int?
        var tls: TLS?
        var mediaHost: String?
        var mediaPort: Int?
        var publicIP: String?
        var mediaWorkers: Int?
        var devTokens: Bool?
        var archiveDirectory: String?
        var projects: [Project]?
        var reconnectGraceSeconds: Double?
        var silenceTimeoutSeconds: Double?
        var maxConnectionsPerSession: Int?
        var logLevel: String?
        var unauthenticatedTimeoutSeconds: Int?
        var maxUnauthenticatedSockets: Int?
        var maxProjectJWTLifetimeSeconds: Int?
        var limits: Limits?
        var redis: String?
        var nodeId: String?
        var clusterHeartbeatMilliseconds: Int?
        var clusterNodeTTLMilliseconds: Int?
        var clusterClaimTTLMilliseconds: Int?
        var clusterSecret: String?
        var clusterDrainSeconds: Double?
    }

    /// The `"limits"` object: any field of `RouterLimits`.
    struct Limits: Decodable {
        var streamsPerConnection: Int?
        var subscriptionsPerConnection: Int?
        var connectionsPerAddress: Int?
        var signalsPerSecond: Int?
        var mediaSockets: Int?
        var idleSessionSeconds: Double?
        var missedEventsPerConnection: Int?
        var missedEventBytesPerConnection: Int?
        var pendingSDPOffers: Int?
    }

    static let knownLimitKeys: Set<String> = ["streamsPerConnection", "subscriptionsPerConnection", "connectionsPerAddress",
                                              "signalsPerSecond", "mediaSockets", "idleSessionSeconds",
                                              "missedEventsPerConnection", "missedEventBytesPerConnection", "pendingSDPOffers"]

    static let knownKeys: Set<String> = ["host", "port", "tls", "mediaHost", "mediaPort", "publicIP", "mediaWorkers", "devTokens", "archiveDirectory", "projects", "reconnectGraceSeconds",
                                         "silenceTimeoutSeconds", "maxConnectionsPerSession", "logLevel",
                                         "unauthenticatedTimeoutSeconds", "maxUnauthenticatedSockets", "maxProjectJWTLifetimeSeconds",
                                         "limits", "redis", "nodeId", "clusterHeartbeatMilliseconds", "clusterNodeTTLMilliseconds",
                                         "clusterClaimTTLMilliseconds", "clusterSecret", "clusterDrainSeconds"]

    static func apply(path: String, to configuration: inout RouterConfiguration) throws(RouterConfigurationError) {
        func fail(_ field: String, _ problem: String) -> RouterConfigurationError {
            RouterConfigurationError(source: path, field: field, problem: problem)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw fail("(file)", "cannot read the file (missing or not readable)")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw fail("(file)", "not a JSON object")
        }
        if let unknown = object.keys.sorted().first(where: { !knownKeys.contains($0) }) {
            throw fail(unknown, "unknown key (known: \(knownKeys.sorted().joined(separator: ", ")))")
        }
        if let limits = object["limits"] as? [String: Any],
           let unknown = limits.keys.sorted().first(where: { !knownLimitKeys.contains($0) }) {
            throw fail("limits.\(unknown)", "unknown key (known: \(knownLimitKeys.sorted().joined(separator: ", ")))")
        }
        let model: Model
        do {
            model = try JSONDecoder().decode(Model.self, from: data)
        } catch let DecodingError.typeMismatch(type, context) {
            throw fail(fieldName(context.codingPath), "must be \(describe(type))")
        } catch let DecodingError.keyNotFound(key, context) {
            throw fail(fieldName(context.codingPath + [key]), "missing")
        } catch let DecodingError.valueNotFound(type, context) {
            throw fail(fieldName(context.codingPath), "must be \(describe(type)), not null")
        } catch {
            throw fail("(file)", "cannot be read: \(error)")
        }
        if let host = model.host { configuration.host = host }
        if let port = model.port { configuration.port = port }
        if let media = model.mediaHost { configuration.mediaHost = media }
        if let port = model.mediaPort {
            guard (0...65535).contains(port) else { throw fail("mediaPort", "must be 0-65535") }
            configuration.mediaPort = port
        }
        if let address = model.publicIP { configuration.publicIP = address }
        if let secret = model.clusterSecret { configuration.clusterSecret = secret }
        if let workers = model.mediaWorkers {
            guard (1...64).contains(workers) else { throw fail("mediaWorkers", "must be 1-64") }
            configuration.mediaWorkers = workers
        }
        if let devTokens = model.devTokens { configuration.devTokens = devTokens }
        if let directory = model.archiveDirectory {
            guard !directory.isEmpty else { throw fail("archiveDirectory", "must not be empty") }
            configuration.archiveDirectory = directory
        }
        if let tls = model.tls {
            configuration.tlsCertificatePath = tls.certificate
            configuration.tlsPrivateKeyPath = tls.privateKey
        }
        if let grace = model.reconnectGraceSeconds { configuration.reconnectGraceSeconds = grace }
        if let silence = model.silenceTimeoutSeconds { configuration.silenceTimeoutSeconds = silence }
        if let limit = model.maxConnectionsPerSession { configuration.maxConnectionsPerSession = limit }
        if let seconds = model.unauthenticatedTimeoutSeconds { configuration.unauthenticatedTimeoutSeconds = seconds }
        if let cap = model.maxUnauthenticatedSockets { configuration.maxUnauthenticatedSockets = cap }
        if let lifetime = model.maxProjectJWTLifetimeSeconds { configuration.maxProjectJWTLifetimeSeconds = Int64(lifetime) }
        if let limits = model.limits {
            var target = configuration.limits
            if let value = limits.streamsPerConnection { target.streamsPerConnection = value }
            if let value = limits.subscriptionsPerConnection { target.subscriptionsPerConnection = value }
            if let value = limits.connectionsPerAddress { target.connectionsPerAddress = value }
            if let value = limits.signalsPerSecond { target.signalsPerSecond = value }
            if let value = limits.mediaSockets { target.mediaSockets = value }
            if let value = limits.idleSessionSeconds { target.idleSessionSeconds = value }
            if let value = limits.missedEventsPerConnection { target.missedEventsPerConnection = value }
            if let value = limits.missedEventBytesPerConnection { target.missedEventBytesPerConnection = value }
            if let value = limits.pendingSDPOffers { target.pendingSDPOffers = value }
            configuration.limits = target
        }
        if let level = model.logLevel {
            guard let parsed = LogLevel(rawValue: level) else {
                throw fail("logLevel", "\"\(level)\" is not one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            configuration.logLevel = parsed
        }
        if let url = model.redis {
            do {
                configuration.cluster = ClusterConfiguration(redis: try RedisEndpoint(url: url), nodeId: model.nodeId ?? "")
            } catch {
                throw fail("redis", error.description)
            }
        }
        if model.nodeId != nil || model.clusterHeartbeatMilliseconds != nil || model.clusterNodeTTLMilliseconds != nil
            || model.clusterClaimTTLMilliseconds != nil || model.clusterDrainSeconds != nil {
            guard var cluster = configuration.cluster else { throw fail("redis", "nodeId and the cluster timings need \"redis\"") }
            if let id = model.nodeId { cluster.nodeId = id }
            if let value = model.clusterHeartbeatMilliseconds { cluster.heartbeatMilliseconds = value }
            if let value = model.clusterNodeTTLMilliseconds { cluster.nodeTTLMilliseconds = value }
            if let value = model.clusterClaimTTLMilliseconds { cluster.claimTTLMilliseconds = value }
            if let value = model.clusterDrainSeconds { cluster.drainTimeoutSeconds = value }
            configuration.cluster = cluster
        }
        // One secret for both uses: signing forwarded sockets (with "redis") and cascade calls.
        if let value = model.clusterSecret, configuration.cluster != nil { configuration.cluster!.secret = value }
        for project in model.projects ?? [] {
            configuration.projects.append(ProjectCredentials(apiKey: project.apiKey, apiSecret: project.apiSecret))
        }
    }

    /// `projects[0].apiSecret` from a coding path.
    static func fieldName(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return text.isEmpty ? "(file)" : text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type: return "a whole number"
        case is Double.Type: return "a number"
        default: return "of another type (\(type))"
        }
    }
}
