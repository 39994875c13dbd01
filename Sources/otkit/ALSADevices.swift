import Glibc

/// One ALSA PCM device as the kernel lists it in /proc/asound/pcm.
struct ALSADevice {
    /// Card and device numbers (`hw:CARD,DEVICE`).
    var card: Int
    var device: Int
    /// The card's id (`hw:ID,DEVICE` works too), from /proc/asound/cards.
    var cardId: String
    /// The PCM's name.
    var name: String
    /// Whether it captures and/or plays.
    var capture: Bool
    var playback: Bool

    /// The ALSA name to pass to `--mic` or `--play`.
    var alsaName: String { "hw:\(cardId.isEmpty ? String(card) : cardId),\(device)" }

    /// Every PCM device of the machine (none when there is no sound card). Cost: two small file reads.
    static func all() -> [ALSADevice] {
        var ids: [Int: String] = [:]
        for line in readLines("/proc/asound/cards") {
            // " 0 [Loopback       ]: Loopback - Loopback"
            let trimmed = line.drop { $0 == " " }
            guard let open = trimmed.firstIndex(of: "["), let close = trimmed.firstIndex(of: "]"),
                  let number = Int(trimmed[..<open].trimmingCharacters(in: " ")) else { continue }
            ids[number] = String(trimmed[trimmed.index(after: open)..<close]).trimmingCharacters(in: " ")
        }
        var devices: [ALSADevice] = []
        for line in readLines("/proc/asound/pcm") {
            // "00-01: Loopback PCM : Loopback PCM : playback 8 : capture 8"
            let fields = line.split(separator: ":", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: " ") }
            let numbers = fields.first?.split(separator: "-") ?? []
            guard fields.count >= 3, numbers.count == 2, let card = Int(numbers[0]), let device = Int(numbers[1]) else { continue }
            devices.append(ALSADevice(card: card, device: device, cardId: ids[card] ?? "", name: fields[1],
                                      capture: fields.dropFirst(3).contains { $0.hasPrefix("capture") },
                                      playback: fields.dropFirst(3).contains { $0.hasPrefix("playback") }))
        }
        return devices
    }

    private static func readLines(_ path: String) -> [String] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var lines: [String] = []
        var buffer = [CChar](repeating: 0, count: 512)
        while fgets(&buffer, 512, file) != nil {
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            lines.append(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: "\n"))
        }
        return lines
    }
}

extension StringProtocol {
    /// The text without leading and trailing `character`s.
    func trimmingCharacters(in character: Character) -> String {
        var slice = Substring(self)
        while slice.first == character || (character == " " && slice.first == "\t") { slice = slice.dropFirst() }
        while slice.last == character || (character == " " && slice.last == "\t") { slice = slice.dropLast() }
        return String(slice)
    }
}
