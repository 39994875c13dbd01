/// One stream a manual-mode archive records (`PATCH /archive/{id}/streams` with
/// `addStream`), with the tracks it asked for. Listed in the archive's `streams`.
struct ArchiveStreamSelection: Equatable {
    let streamId: String
    var hasAudio: Bool
    var hasVideo: Bool
}
