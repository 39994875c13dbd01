import OTMedia
import Synchronization

/// The legs a `MediaEdge` knows, found by id, by local ICE ufrag (STUN) and by selected
/// address (DTLS, RTP, RTCP once ICE chose one).
///
/// One short `Mutex` around three dictionaries: a lookup holds it for a hash probe, and
/// nothing holds it across I/O or while processing a packet, so registering or removing a
/// leg never waits for a worker's socket call and never stops a worker. Cost per lookup: a
/// lock and a hash probe (the ufrag key is a small string: no heap for ufrags of up to
/// 15 bytes); per registration: three inserts.
final class EdgeLegRegistry: Sendable {
    private struct Tables {
        var byID: [EdgeLegID: EdgeLeg] = [:]
        var byUfrag: [String: EdgeLeg] = [:]
        var byAddress: [SocketAddress: EdgeLeg] = [:]
    }

    let maximumLegs: Int
    private let tables = Mutex(Tables())

    init(maximumLegs: Int) { self.maximumLegs = maximumLegs }

    /// Adds `leg`, or throws when its id or local ufrag is taken or the table is full.
    func insert(_ leg: EdgeLeg) throws(EdgeError) {
        let ufrag = leg.description.local.ufrag
        let failure: EdgeError? = tables.withLock { tables in
            guard tables.byID[leg.id] == nil, tables.byUfrag[ufrag] == nil else { return .duplicateLeg }
            guard tables.byID.count < maximumLegs else { return .tooManyLegs(limit: maximumLegs) }
            tables.byID[leg.id] = leg
            tables.byUfrag[ufrag] = leg
            return nil
        }
        if let failure { throw failure }
    }

    /// Takes leg `id` out of every table and returns it (nil when unknown).
    @discardableResult
    func remove(_ id: EdgeLegID) -> EdgeLeg? {
        tables.withLock { tables in
            guard let leg = tables.byID.removeValue(forKey: id) else { return nil }
            tables.byUfrag[leg.description.local.ufrag] = nil
            for (address, owner) in tables.byAddress where owner === leg { tables.byAddress[address] = nil }
            return leg
        }
    }

    /// Removes `leg` only if it is still the one registered under its id.
    func remove(_ leg: EdgeLeg) {
        tables.withLock { tables in
            guard tables.byID[leg.id] === leg else { return }
            tables.byID[leg.id] = nil
            tables.byUfrag[leg.description.local.ufrag] = nil
            for (address, owner) in tables.byAddress where owner === leg { tables.byAddress[address] = nil }
        }
    }

    /// The leg registered as `id`.
    func leg(id: EdgeLegID) -> EdgeLeg? { tables.withLock { $0.byID[id] } }

    /// The leg whose local ufrag is `ufrag`.
    func leg(ufrag: String) -> EdgeLeg? { tables.withLock { $0.byUfrag[ufrag] } }

    /// The leg that selected `address`.
    func leg(at address: SocketAddress) -> EdgeLeg? { tables.withLock { $0.byAddress[address] } }

    /// Points `address` at `leg` (its ICE nomination), dropping `previous` if it was the
    /// leg's; ignored once the leg was removed.
    func select(_ leg: EdgeLeg, address: SocketAddress, previous: SocketAddress?) {
        tables.withLock { tables in
            guard tables.byID[leg.id] === leg else { return }
            if let previous, tables.byAddress[previous] === leg { tables.byAddress[previous] = nil }
            tables.byAddress[address] = leg
        }
    }

    /// Every leg, for the timer pass. Allocates the array.
    func all() -> [EdgeLeg] { tables.withLock { Array($0.byID.values) } }

    /// Legs registered.
    var count: Int { tables.withLock { $0.byID.count } }
}
