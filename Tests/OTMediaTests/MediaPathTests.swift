import Testing

/// The suites that run real media over loopback (OTKit's pipelines, GStreamer peers,
/// the impairment proxy) are nested here and run one at a time: each uses most of a
/// core in real time, and on a 2-core machine running them side by side would test the
/// scheduler, not the media path.
@Suite(.serialized) enum MediaPathTests {}
