import OTMedia
import OTSignaling

/// How a receiving router reaches the origin of a stream to open, close and steer its
/// cascade egress. The calls block (the caller is the control plane, never a forwarding
/// thread). `CascadeControlOrigin` calls another router's `CascadeControl` in the same
/// process through its wire format; across machines the same requests go as
/// `POST /cluster/v1/cascade` with the cluster secret (see docs/scale.md).
public protocol CascadeOrigin: Sendable {
    /// Opens the egress of `streamId` towards `node`, whose ICE credentials and
    /// certificate fingerprint are `transport`; returns the origin's leg (edge address,
    /// ICE credentials, fingerprint, SSRCs; never a key). Throws `MediaError`
    /// (`invalidArgument` for an unknown stream or a refused request, `networkFailure`
    /// when the origin cannot be reached).
    func openEgress(streamId: String, node: String, transport: WireTransport) throws(MediaError) -> WireMediaLeg
    /// Closes that egress (best effort; errors are dropped).
    func closeEgress(streamId: String, node: String)
    /// Sends the receiving node's aggregate preferences to the egress (best effort).
    func setPreferences(streamId: String, node: String, width: Int?, height: Int?, frameRate: Double?)
}
