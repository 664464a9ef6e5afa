import Foundation

/// The semantic key of a planned meal: the day and the meal type, `yyyy-MM-dd-<mealType>`.
///
/// One slot holds one planned meal on every device; two devices that plan Tuesday's breakfast
/// offline write into the same slot, and the slot surfaces their choices as a conflict instead
/// of holding two breakfasts.
///
/// ```swift
/// SlotKey(day: CalendarDay(year: 2024, month: 12, day: 10)!, mealType: .breakfast).rawValue
/// // "2024-12-10-breakfast"
/// ```
///
/// Rules (all versions): the day is taken in the calendar and time zone the caller passes (the
/// person's, by default the device's current one) at the time of planning, and stored as a day.
public struct SlotKey: RawRepresentable, Hashable, Comparable, Codable, Sendable {
  /// The day of the meal.
  public let day: CalendarDay
  /// Which meal of the day.
  public let mealType: MealType

  /// Creates the key of a day and meal.
  public init(day: CalendarDay, mealType: MealType) {
    self.day = day
    self.mealType = mealType
  }

  /// Creates the key of the meal on the Gregorian day `date` falls on in `calendar`'s time
  /// zone (see ``CalendarDay/init(_:in:)``).
  ///
  /// 23:30 on 10 December in New York is the 10th there and the 11th in UTC: pass the person's
  /// calendar, and the slot is the day they meant, whichever calendar they read it in.
  public init(date: Date, mealType: MealType, calendar: Calendar = .current) {
    self.init(day: CalendarDay(date, in: calendar), mealType: mealType)
  }

  /// `yyyy-MM-dd-<mealType>`.
  public var rawValue: String { "\(day)-\(mealType.rawValue)" }

  /// Parses `yyyy-MM-dd-<mealType>`: ASCII digits, no sign, and a meal type as ``rawValue``
  /// spells it; `nil` for anything else, so that every key read writes back as it was read.
  public init?(rawValue: String) {
    var text = rawValue
    guard
      let key = text.withUTF8({ bytes -> SlotKey? in
        guard bytes.count > 11, bytes[10] == UInt8(ascii: "-"),
          let day = CalendarDay(parsingUTF8: UnsafeBufferPointer(rebasing: bytes[..<10])),
          let mealType = MealType(
            rawValue: String(decoding: UnsafeBufferPointer(rebasing: bytes[11...]), as: UTF8.self))
        else { return nil }
        return SlotKey(day: day, mealType: mealType)
      })
    else { return nil }
    self = key
  }

  // Equality and hashing by the parts: the defaults for a `RawRepresentable` type would build
  // `rawValue`'s text for every comparison and every hash of a planned meal's key.

  public static func == (lhs: SlotKey, rhs: SlotKey) -> Bool {
    lhs.day == rhs.day && lhs.mealType == rhs.mealType
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(day)
    hasher.combine(mealType)
  }

  /// Orders by day, then meal of the day.
  public static func < (lhs: SlotKey, rhs: SlotKey) -> Bool {
    (lhs.day, lhs.mealType) < (rhs.day, rhs.mealType)
  }

  /// Decodes the `yyyy-MM-dd-<mealType>` string.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let key = SlotKey(rawValue: text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "\"\(text)\" is not a slot key yyyy-MM-dd-<mealType>")
    }
    self = key
  }

  /// Encodes the `yyyy-MM-dd-<mealType>` string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

extension SlotKey: CustomStringConvertible {
  public var description: String { rawValue }
}
