import ForagerSync

/// A message's JSON truncated at every length and with bytes changed, as a link or a hostile
/// peer would deliver it.
public enum DamagedMessages {
  /// Decodes every truncation of `json` and, at every `stride`-th byte, a copy with that byte
  /// changed to each of a few that matter to JSON (digits, quote, comma, brackets, NUL).
  ///
  /// - Returns: What each truncation was not refused as malformed for (read, or refused
  ///   otherwise), and how many changed copies still read as some message.
  public static func decode(_ json: [UInt8], stride: Int = 1) -> (
    truncationsNotMalformed: [String], changedCopiesRead: Int
  ) {
    var wrong: [String] = []
    for length in 0..<json.count {
      do {
        _ = try SyncMessage(decoding: Array(json.prefix(length)))
        wrong.append("a truncation to \(length) bytes was read")
      } catch {
        guard case .malformed = error else {
          wrong.append("a truncation to \(length) bytes refused as \(error)")
          continue
        }
      }
    }
    var read = 0
    for position in Swift.stride(from: 0, to: json.count, by: stride) {
      for replacement: UInt8 in [0x30, 0x39, 0x22, 0x2C, 0x5B, 0x7B, 0x7D, 0x00] {
        var damaged = json
        damaged[position] = replacement
        if (try? SyncMessage(decoding: damaged)) != nil { read += 1 }
      }
    }
    return (wrong, read)
  }
}
