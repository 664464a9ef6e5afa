import SemanticCRDT

/// The last few replica ids a reader read as text, kept by their bytes.
///
/// A state names a handful of replicas, each once per dot and once per timestamp: a household of
/// 100,000 records reads the same few ids hundreds of thousands of times. Making each again is a
/// `String` from the bytes and a check that it is composed (NFC); finding it here is a compare
/// of two words. An id is a function of its unescaped text alone, so an id found by its bytes is
/// the id those bytes would make.
struct RecentReplicas {
  /// How many ids are kept. A state whose dots and stamps name more replicas in turn reads
  /// the others as before, each made again.
  static let capacity = 4
  /// The longest text kept, in UTF-8 bytes: two words, which ``ReplicaID/random()``'s 13
  /// characters fit. A longer id is made each time.
  static let longestText = 16

  private struct Entry {
    let words: (UInt64, UInt64)
    let id: ReplicaID
  }

  private var entries: [Entry] = []
  /// The entry the next new id replaces once all are taken.
  private var oldest = 0

  /// The id whose text is `text`, made by `make` unless it was read lately. `text` is a JSON
  /// string's bytes without escapes, so it holds no zero byte (JSON escapes every control
  /// character): two texts with equal zero-padded words are equal, whatever their lengths.
  ///
  /// - Complexity: O(1): at most ``capacity`` compares of two words, or `make`.
  mutating func id(
    text: UnsafeBufferPointer<UInt8>, make: (UnsafeBufferPointer<UInt8>) -> ReplicaID
  ) -> ReplicaID {
    guard text.count <= Self.longestText else { return make(text) }
    assert(!text.contains(0), "a JSON string's unescaped bytes hold no zero byte")
    let words = Self.words(of: text)
    for entry in entries where entry.words.0 == words.0 && entry.words.1 == words.1 {
      return entry.id
    }
    let id = make(text)
    let entry = Entry(words: words, id: id)
    if entries.count < Self.capacity {
      entries.append(entry)
    } else {
      entries[oldest] = entry
      oldest = (oldest + 1) % Self.capacity
    }
    return id
  }

  /// `text`, at most 16 bytes, in two words, the bytes past its end zero.
  private static func words(of text: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
    var words: (UInt64, UInt64) = (0, 0)
    withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(text)) }
    return words
  }
}
