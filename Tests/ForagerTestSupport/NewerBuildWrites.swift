import ForagerModel
import ForagerSync
import SemanticCRDT
import SemanticCRDTJSON

extension RandomHousehold {
  /// `replica` after merging what a newer build wrote: a record of a kind this build does not
  /// know (a shelf, one field of each kind) and, on its first category, a field of each kind
  /// this build does not know, so that what tests mutate, merge and write back holds both
  /// (ADR 0036, 0037).
  public static func addingNewerBuildsWrites(to replica: HouseholdReplica) -> HouseholdReplica {
    var replica = replica
    let stamp = #"[1733788800500,0,"newer"]"#
    let fields =
      #""keepers:mv":{"context":{"newer":[[1,1]]},"writes":[[["newer",1],[\#(stamp),"Ana"]]]},"#
      + #""label:lww":{"timestamp":\#(stamp),"value":"Cellar \"top\""},"#
      + #""lastChecked:max":1733788900000,"restocks:counter":{"newer":3}"#
    let member = String(decoding: JSONWriter.encode(owner), as: UTF8.self)
    let creation = #""creation":{"member":\#(member),"timestamp":\#(stamp)}"#
    var newer = HouseholdState(emptyLike: replica.state)
    let shelf = try! JSONReader.decode(
      CarriedRecord.self, from: Array("{\(creation),\(fields)}".utf8))
    _ = newer[carried: "shelves:map"].set(CarriedKey("cellar"), to: shelf, by: "newer")
    if let category = replica.categories().first {
      let key = JSONWriter.encode(category.key)
      let record = try! JSONReader.decode(
        GroceryCategory.self,
        from: Array(
          #"{\#(creation),"key":\#(String(decoding: key, as: UTF8.self)),\#(fields)}"#.utf8))
      _ = newer.categories.set(category.key, to: record, by: "newer")
    }
    _ = try! replica.merge(newer)
    return replica
  }
}
