/// Renders ``RouterMetrics`` in the Prometheus text exposition format 0.0.4 (`# HELP`,
/// `# TYPE`, one sample per line).
enum PrometheusText {
    /// The Content-Type of the output.
    static let contentType = "text/plain; version=0.0.4"

    /// The bad-token reasons always printed (at 0 until they happen), so dashboards see them.
    static let knownBadTokenReasons = ["bad_signature", "connection_data_too_long", "expired", "expiry_too_far",
                                       "layout_class_list_too_long", "malformed", "unknown_api_key", "unknown_role",
                                       "wrong_api_key", "wrong_session"]

    static func render(_ metrics: RouterMetrics) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { out += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        func single(_ name: String, _ type: String, _ help: String, _ value: some BinaryInteger) {
            metric(name, type, help, [("", String(value))])
        }
        single("otkit_sessions", "gauge", "Sessions the router knows (created or joined).", metrics.sessions)
        single("otkit_sessions_active", "gauge", "Sessions with at least one connection.", metrics.activeSessions)
        single("otkit_connections", "gauge", "Client connections, including those in their reconnection grace.", metrics.connections)
        single("otkit_streams", "gauge", "Published streams.", metrics.streams)
        single("otkit_subscribers", "gauge", "Subscriptions.", metrics.subscribers)
        single("otkit_packets_in_total", "counter", "Authenticated RTP/RTCP packets received by the media router.", metrics.media.packetsIn)
        single("otkit_packets_out_total", "counter", "Packets sent by the media router.", metrics.media.packetsOut)
        single("otkit_packets_dropped_total", "counter", "Packets the media router dropped (no subscriber, queue full).", metrics.media.packetsDropped)
        single("otkit_muted_audio_packets_dropped_total", "counter", "Audio packets of force-muted streams not forwarded.", metrics.media.mutedAudioDropped)
        single("otkit_bad_packets_total", "counter", "Datagrams that failed SRTP authentication or did not parse.", metrics.media.badPackets)
        single("otkit_retransmissions_total", "counter", "NACKed packets the media router resent from its history.",
               metrics.media.retransmissions)
        metric("otkit_retransmissions_refused_total", "counter",
               "NACKed packets not resent, by reason: the leg's resend budget was spent, or resent within a round trip.",
               [("{reason=\"budget\"}", String(metrics.media.retransmissionsOverBudget)),
                ("{reason=\"duplicate\"}", String(metrics.media.retransmissionsDuplicate))])
        single("otkit_leg_address_moves_total", "counter", "Media legs moved to a new client address after its probation.",
               metrics.media.addressMoves)
        single("otkit_leg_unknown_ssrc_refused_total", "counter",
               "Media datagrams dropped unread: a sender SSRC past the leg's first 8 authenticated ones.",
               metrics.media.unknownSSRCRefused)
        single("otkit_leg_address_held_packets_total", "counter",
               "Authenticated datagrams from a new source address that did not move their leg (probation, rate limit).",
               metrics.media.addressDatagramsHeld)
        var reasons = metrics.badTokens
        for reason in knownBadTokenReasons where reasons[reason] == nil { reasons[reason] = 0 }
        metric("otkit_bad_tokens_total", "counter", "Connection tokens refused, by reason.",
               reasons.sorted { $0.key < $1.key }.map { ("{reason=\"\($0.key)\"}", String($0.value)) })
        single("otkit_bad_messages_total", "counter", "Signaling messages that did not parse.", metrics.badMessages)
        single("otkit_sdp_rejected_total", "counter", "Browser SDP offers and answers refused (malformed, too large, not negotiable).",
               metrics.sdpRejected)
        single("otkit_signals_total", "counter", "Signals delivered (client and REST).", metrics.signals)
        var refusals = metrics.limitRefusals
        for limit in RouterLimit.allCases where refusals[limit.rawValue] == nil { refusals[limit.rawValue] = 0 }
        metric("otkit_limit_refusals_total", "counter", "Requests refused by a router limit, by limit.",
               refusals.sorted { $0.key < $1.key }.map { ("{limit=\"\($0.key)\"}", String($0.value)) })
        single("otkit_idle_sessions_removed_total", "counter", "Sessions removed after sitting empty.", metrics.idleSessionsRemoved)
        single("otkit_media_sockets", "gauge", "UDP sockets the media router has open (one per leg).", metrics.mediaSockets)
        if let cluster = metrics.cluster {  // only with --redis
            single("otkit_cluster_owned_sessions", "gauge", "Sessions this node owns in the cluster.", cluster.ownedSessions)
            single("otkit_cluster_heartbeats_total", "counter", "Heartbeats that reached Redis.", cluster.heartbeats)
            single("otkit_cluster_redis_errors_total", "counter", "Redis commands that failed (unreachable, timeout, bad reply).",
                   cluster.redisErrors)
            metric("otkit_cluster_claims_total", "counter", "Session claims, by outcome.",
                   [("{outcome=\"won\"}", String(cluster.claimsWon)), ("{outcome=\"lost\"}", String(cluster.claimsLost)),
                    ("{outcome=\"retaken\"}", String(cluster.claimsRetaken)), ("{outcome=\"dropped\"}", String(cluster.claimsDropped)),
                    ("{outcome=\"takenOver\"}", String(cluster.claimsTakenOver))])
            single("otkit_cluster_nodes_pruned_total", "counter", "Nodes this node removed from the registry (heartbeat lapsed).",
                   cluster.nodesPruned)
            single("otkit_cluster_refused_without_redis_total", "counter",
                   "Client connects refused: their session was not placed and Redis did not answer.", cluster.refusedWithoutRedis)
        }
        if let cascade = metrics.cascade {
            metric("otkit_cascade_legs", "gauge", "Media cascade legs open now: egress (a local stream sent to another node), ingress (a stream received from its origin).",
                   [("{direction=\"egress\"}", String(cascade.egressLegs)), ("{direction=\"ingress\"}", String(cascade.ingressLegs))])
            metric("otkit_cascade_packets_total", "counter", "Packets over media cascade legs, by direction.",
                   [("{direction=\"egress\"}", String(cascade.egressPackets)), ("{direction=\"ingress\"}", String(cascade.ingressPackets))])
            single("otkit_cascade_egress_audio_packets_total", "counter", "Audio RTP packets the cascade egress legs sent.",
                   cascade.egressAudioPackets)
            metric("otkit_cascade_bytes_total", "counter", "Bytes (SRTP) over media cascade legs, by direction.",
                   [("{direction=\"egress\"}", String(cascade.egressBytes)), ("{direction=\"ingress\"}", String(cascade.ingressBytes))])
            metric("otkit_cascade_requests_refused_total", "counter", "Cascade control calls refused, by reason.",
                   [("{reason=\"credentials\"}", String(cascade.requestsRefused)),
                    ("{reason=\"unknown_stream\"}", String(cascade.requestsUnknownStream))])
        }
        if let forwarding = metrics.forwarding {  // only with --redis
            single("otkit_cluster_proxied_sockets_total", "counter", "Client sockets proxied to the session's owner.", forwarding.proxiedSockets)
            single("otkit_cluster_proxied_sockets", "gauge", "Client sockets proxied to another node now.", forwarding.activeProxies)
            single("otkit_cluster_proxy_failures_total", "counter", "Proxied sockets whose owner could not be reached.", forwarding.proxyFailures)
            single("otkit_cluster_proxy_overflows_total", "counter", "Proxied clients closed for a full queue toward the owner.",
                   forwarding.proxyOverflows)
            single("otkit_cluster_rest_forwarded_total", "counter", "REST calls forwarded to the session's owner.", forwarding.restForwarded)
            single("otkit_cluster_rest_owner_unreachable_total", "counter", "REST calls answered 503: the owner could not be reached.",
                   forwarding.restOwnerUnreachable)
            single("otkit_cluster_forged_marks_total", "counter", "Sockets and REST calls refused for a cluster mark that does not verify.",
                   forwarding.forgedMarks)
            single("otkit_cluster_cascaded_subscribers_total", "counter",
                   "Subscriber legs opened on this node for proxied clients, fed by a cascade from the session's node.",
                   forwarding.cascadedSubscribers)
            single("otkit_cluster_cascade_failures_total", "counter",
                   "Proxied clients' subscribes answered 1604: the stream could not be cascaded from the session's node.",
                   forwarding.cascadeFailures)
        }
        metric("otkit_rest_requests_total", "counter", "HTTP requests answered, by status.",
               metrics.restRequests.sorted { $0.key < $1.key }.map { ("{status=\"\($0.key)\"}", String($0.value)) })
        metric("otkit_rest_auth_refused_total", "counter", "REST calls refused for their X-OPENTOK-AUTH JWT, by reason.",
               metrics.restAuthRefused.sorted { $0.key < $1.key }.map { ("{reason=\"\($0.key)\"}", String($0.value)) })
        single("otkit_http_framing_refused_total", "counter", "HTTP requests refused for their framing (Content-Length with Transfer-Encoding, bad length).", metrics.web.framingRefused)
        single("otkit_websockets_unauthenticated_closed_total", "counter", "Signaling sockets that closed before a valid connect (most by the deadline).", metrics.web.unauthenticatedClosed)
        single("otkit_websockets_unauthenticated_evicted_total", "counter", "Oldest signaling sockets without a connect, closed to make room at the cap.", metrics.web.unauthenticatedEvicted)
        single("otkit_connections_descriptor_refused_total", "counter", "Connections closed on accept to keep the descriptor reserve free.", metrics.web.descriptorRefused)
        single("otkit_accept_failures_total", "counter", "Accepts that failed (EMFILE/ENFILE); the server pauses after each.", metrics.web.acceptFailures)
        single("otkit_http_malformed_total", "counter", "HTTP requests refused for their syntax or size (400/414/426/431/501/505).", metrics.web.malformedRequests)
        single("otkit_websocket_protocol_errors_total", "counter", "WebSockets closed for breaking RFC 6455 (1002/1007/1009).", metrics.web.webSocketProtocolErrors)
        single("otkit_websocket_unmasked_frames_total", "counter", "WebSockets closed for an unmasked client frame (RFC 6455 section 5.1).", metrics.web.unmaskedFrames)
        return out
    }
}
