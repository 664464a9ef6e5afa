import Foundation

/// A calendar day — year, month, day — not an instant.
///
/// A planned meal belongs to the day the person meant, in their time zone when they planned
/// it, counted in the Gregorian calendar whatever calendar they read. Storing the day, not a
/// `Date`, keeps "Tuesday's breakfast" on Tuesday when the household travels or a device runs
/// in another time zone.
public struct CalendarDay: Hashable, Comparable, Codable, Sendable {
  // Stored in fixed widths, so that nothing of a record depends on `Int`'s width
  // (`FixedWidthWireTests`); a day is 1...9999, 1...12, 1...31.
  private let storedYear: Int16
  private let storedMonth: UInt8
  private let storedDay: UInt8

  /// 1 to 9999.
  public var year: Int { Int(storedYear) }
  /// 1 to 12.
  public var month: Int { Int(storedMonth) }
  /// 1 to 31.
  public var day: Int { Int(storedDay) }

  private init(checked year: Int, month: Int, day: Int) {
    storedYear = Int16(year)
    storedMonth = UInt8(month)
    storedDay = UInt8(day)
  }

  /// Creates a day from its parts; `nil` when they do not form a day of the Gregorian calendar.
  ///
  /// Days after the Gregorian reform of 1582 are checked by arithmetic (every file load checks
  /// every planned meal's day); earlier ones by Foundation's calendar, which counts them in the
  /// Julian calendar and skips the ten days of the reform.
  public init?(year: Int, month: Int, day: Int) {
    guard (1...9999).contains(year) else { return nil }
    if year > 1582 {
      guard (1...12).contains(month), day >= 1, day <= Self.length(ofMonth: month, in: year)
      else { return nil }
    } else {
      var utc = Calendar(identifier: .gregorian)
      utc.timeZone = TimeZone(identifier: "UTC")!
      guard DateComponents(year: year, month: month, day: day).isValidDate(in: utc) else {
        return nil
      }
    }
    self.init(checked: year, month: month, day: day)
  }

  /// The days in `month` (1–12) of a Gregorian `year`.
  static func length(ofMonth month: Int, in year: Int) -> Int {
    switch month {
    case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// The Gregorian day that `date` falls on in `calendar`'s time zone.
  ///
  /// Only the time zone is taken from `calendar`: days are always counted in the Gregorian
  /// calendar, whatever calendar the person reads. On Apple platforms `Calendar.current` is the
  /// one chosen in Settings (Japanese, Buddhist, Hebrew, Islamic, Persian…), whose year, month
  /// and day would put one dinner into different slots on two devices of a household, or
  /// write a key that does not read back.
  ///
  /// - Parameters:
  ///   - date: An instant; one before the year 1 or after 9999 gives the first or the last day
  ///     of those years, the days a key can spell.
  ///   - calendar: The person's calendar, for its time zone; defaults to the device's current
  ///     one.
  public init(_ date: Date, in calendar: Calendar = .current) {
    var gregorian = Calendar(identifier: .gregorian)
    gregorian.timeZone = calendar.timeZone
    let parts = gregorian.dateComponents([.era, .year, .month, .day], from: date)
    guard let era = parts.era, let year = parts.year, let month = parts.month,
      let day = parts.day, era == 1, year <= 9999
    else {
      let before = date < Date(timeIntervalSince1970: 0)
      self.init(checked: before ? 1 : 9999, month: before ? 1 : 12, day: before ? 1 : 31)
      return
    }
    self.init(checked: year, month: month, day: day)
  }

  /// Parses `yyyy-MM-dd`: four, two and two ASCII digits, no sign; `nil` for anything else or
  /// a day no calendar has.
  public init?(parsing text: String) {
    var text = text
    guard let day = text.withUTF8({ CalendarDay(parsingUTF8: $0) }) else { return nil }
    self = day
  }

  /// Parses `yyyy-MM-dd` from exactly these bytes.
  init?(parsingUTF8 bytes: UnsafeBufferPointer<UInt8>) {
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
      let year = Self.number(bytes[0..<4]), let month = Self.number(bytes[5..<7]),
      let day = Self.number(bytes[8..<10])
    else { return nil }
    self.init(year: year, month: month, day: day)
  }

  /// The number these ASCII digits spell; `nil` if any byte is not a digit.
  private static func number(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
    var value = 0
    for byte in digits {
      let digit = byte &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      value = value * 10 + Int(digit)
    }
    return value
  }

  private enum CodingKeys: String, CodingKey { case year, month, day }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let (year, month, day) = try (
      container.decode(Int64.self, forKey: .year), container.decode(Int64.self, forKey: .month),
      container.decode(Int64.self, forKey: .day)
    )
    guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
      let valid = CalendarDay(year: Int(year), month: Int(month), day: Int(day))
    else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath, debugDescription: "\(year)-\(month)-\(day) is not a day"))
    }
    self = valid
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Int64(year), forKey: .year)
    try container.encode(Int64(month), forKey: .month)
    try container.encode(Int64(day), forKey: .day)
  }

  /// Orders days chronologically.
  public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }
}

extension CalendarDay: CustomStringConvertible {
  /// `yyyy-MM-dd`, for example `2024-12-10`.
  public var description: String {
    String(unsafeUninitializedCapacity: 10) { text in
      func put(_ value: Int, digits: Int, endingAt end: Int) {
        var value = value
        for position in stride(from: end, to: end - digits, by: -1) {
          text[position] = UInt8(ascii: "0") + UInt8(value % 10)
          value /= 10
        }
      }
      put(year, digits: 4, endingAt: 3)
      text[4] = UInt8(ascii: "-")
      put(month, digits: 2, endingAt: 6)
      text[7] = UInt8(ascii: "-")
      put(day, digits: 2, endingAt: 9)
      return 10
    }
  }
}
