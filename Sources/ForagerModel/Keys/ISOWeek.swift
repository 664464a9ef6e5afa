import Foundation

/// An ISO-8601 week, `yyyy-Www`: a helper for naming and grouping weekly lists and meal plans.
///
/// It is not an identity: the app lets a household keep several lists for one week,
/// so lists and plans are identified by UUID.
public struct ISOWeek: Hashable, Comparable, Codable, Sendable {
  /// The ISO week-numbering year (which differs from the calendar year around 1 January).
  public let year: Int
  /// The week, 1–53.
  public let week: Int

  /// The ISO week that `date` falls in, judged in `timeZone`.
  public init(_ date: Date, timeZone: TimeZone = .current) {
    var calendar = Calendar(identifier: .iso8601)
    calendar.timeZone = timeZone
    year = calendar.component(.yearForWeekOfYear, from: date)
    week = calendar.component(.weekOfYear, from: date)
  }

  /// The ISO week of a calendar day.
  public init(_ day: CalendarDay) {
    var calendar = Calendar(identifier: .iso8601)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let noon = calendar.date(
      from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))!
    self.init(noon, timeZone: calendar.timeZone)
  }

  /// Orders chronologically.
  public static func < (lhs: ISOWeek, rhs: ISOWeek) -> Bool {
    (lhs.year, lhs.week) < (rhs.year, rhs.week)
  }
}

extension ISOWeek: CustomStringConvertible {
  /// `yyyy-Www`, for example `2024-W50`.
  public var description: String { "\(year)-W\(week < 10 ? "0" : "")\(week)" }
}
