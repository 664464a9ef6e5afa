import Foundation
import SemanticCRDT
import SemanticCRDTJSON

// Each record kind's conformance to `DeclaredRecord`, whose declaration is beside its stored
// properties in Entities.swift, and what it derives: the public operations every record has.

extension GroceryCategory: DeclaredRecord {
  package static let fieldKeys = declaredKeys()
}

extension IngredientTemplate: DeclaredRecord {
  package static let fieldKeys = declaredKeys()
}

extension Recipe: DeclaredRecord {
  package static let fieldKeys = declaredKeys()
}

extension WeeklyList: DeclaredRecord {
  package static let fieldKeys = declaredKeys()
}

extension MealPlan: DeclaredRecord {
  package static let fieldKeys = declaredKeys()
}

extension GroceryListItem: DeclaredRecord {
  package static let fieldKeys = declaredKeys()
}

extension PlannedMeal: DeclaredRecord {
  package static let fieldKeys = declaredKeys()
}

extension Member: DeclaredRecord {
  package static let fieldKeys = declaredKeys()
}

// What each record kind derives from its declaration, as the public operations its protocols
// require: merge field by field, each by its kind, the earlier creation winning; the latest
// write to any field; the fields that hold dots committed over the previous record's (see
// `Nestable`); both codecs. A public witness cannot come from an extension of a package
// protocol, so each kind forwards to it here.

extension GroceryCategory {
  public mutating func merge(_ other: Self) { mergeFields(other) }
  public var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  public func committed(
    over previous: @autoclosure () -> Self?, in scope: inout NestingScope
  ) -> Self {
    committedFields(over: previous, in: &scope)
  }
  public func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  public func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  public init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
}

extension IngredientTemplate {
  public mutating func merge(_ other: Self) { mergeFields(other) }
  public var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  public func committed(
    over previous: @autoclosure () -> Self?, in scope: inout NestingScope
  ) -> Self {
    committedFields(over: previous, in: &scope)
  }
  public func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  public func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  public init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
}

extension Recipe {
  public mutating func merge(_ other: Self) { mergeFields(other) }
  public var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  public func committed(
    over previous: @autoclosure () -> Self?, in scope: inout NestingScope
  ) -> Self {
    committedFields(over: previous, in: &scope)
  }
  public func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  public func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  public init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
}

extension WeeklyList {
  public mutating func merge(_ other: Self) { mergeFields(other) }
  public var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  public func committed(
    over previous: @autoclosure () -> Self?, in scope: inout NestingScope
  ) -> Self {
    committedFields(over: previous, in: &scope)
  }
  public func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  public func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  public init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
}

extension MealPlan {
  public mutating func merge(_ other: Self) { mergeFields(other) }
  public var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  public func committed(
    over previous: @autoclosure () -> Self?, in scope: inout NestingScope
  ) -> Self {
    committedFields(over: previous, in: &scope)
  }
  public func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  public func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  public init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
}

extension GroceryListItem {
  public mutating func merge(_ other: Self) { mergeFields(other) }
  public var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  public func committed(
    over previous: @autoclosure () -> Self?, in scope: inout NestingScope
  ) -> Self {
    committedFields(over: previous, in: &scope)
  }
  public func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  public func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  public init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
}

extension PlannedMeal {
  public mutating func merge(_ other: Self) { mergeFields(other) }
  public var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  public func committed(
    over previous: @autoclosure () -> Self?, in scope: inout NestingScope
  ) -> Self {
    committedFields(over: previous, in: &scope)
  }
  public func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  public func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  public init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
}

extension Member {
  public mutating func merge(_ other: Self) { mergeFields(other) }
  public var greatestTimestamp: HybridTimestamp? { fieldsGreatestTimestamp }
  public func committed(
    over previous: @autoclosure () -> Self?, in scope: inout NestingScope
  ) -> Self {
    committedFields(over: previous, in: &scope)
  }
  public func write(to writer: inout JSONWriter) { writeFields(to: &writer) }
  public init(from reader: inout JSONReader) throws(JSONError) {
    self = try Self.readFields(from: &reader)
  }
  public func encode(to encoder: any Encoder) throws { try encodeFields(to: encoder) }
  public init(from decoder: any Decoder) throws { try self.init(decodingFieldsFrom: decoder) }
}

extension UUIDIdentifier {
  /// The all-zero identifier: a blank record's, replaced by the one read.
  static var placeholder: Self {
    Self(uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
  }
}

extension Creation {
  /// A blank record's creation, replaced by the one read.
  package static let placeholder = Creation(
    timestamp: HouseholdState.genesis, member: .placeholder)
}
