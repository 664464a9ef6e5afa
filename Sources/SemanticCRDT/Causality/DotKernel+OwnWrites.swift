// What a replica needs when a state claims its own writes beyond those it made
// (docs/decisions/0029): the records that hold its writes, to write them again under dots no
// claim names.

extension DotKernel {
  /// The keys whose live writes include a dot of one of `replicas`, or whose value holds one
  /// as `nested` says.
  ///
  /// - Complexity: O(*n*) for *n* keys.
  package func keys(
    holdingDotsOf replicas: Set<ReplicaID>, nested: (Value) -> Bool = { _ in false }
  ) -> [Key] {
    entries.compactMap { key, siblings in
      siblings.elements.contains { replicas.contains($0.dot.replica) || nested($0.value) }
        ? key : nil
    }
  }

  /// Whether a live write holds a dot of one of `replicas`.
  package func holdsDot(of replicas: Set<ReplicaID>) -> Bool {
    entries.values.contains { siblings in
      siblings.elements.contains { replicas.contains($0.dot.replica) }
    }
  }
}

extension ORMap {
  /// The keys whose live writes, or whose values' own stores as `nested` says, hold a dot of
  /// one of `replicas`.
  package func keys(
    holdingDotsOf replicas: Set<ReplicaID>, nested: (Value) -> Bool = { _ in false }
  ) -> [Key] {
    kernel.keys(holdingDotsOf: replicas) { nested($0.value) }
  }
}

extension MVRegister {
  /// Whether a write of one of `replicas` is live here.
  package func holdsDot(of replicas: Set<ReplicaID>) -> Bool { kernel.holdsDot(of: replicas) }

  /// The register with the writes of `replicas` stamped anew for `replica`, at the same wall
  /// time and logical count: a write of a replica must carry its stamp, and a replica that
  /// writes them again (ADR 0029) keeps their order. Committed into a map, their dots are
  /// minted anew.
  package func restamping(_ replicas: Set<ReplicaID>, as replica: ReplicaID) -> MVRegister {
    MVRegister(
      kernel: kernel.mapValues { write in
        guard replicas.contains(write.timestamp.replica) else { return write }
        return Write(
          value: write.value,
          timestamp: HybridTimestamp(
            wallMilliseconds: write.timestamp.wallMilliseconds,
            logical: write.timestamp.logical, replica: replica))
      })
  }
}

extension DotKernel {
  /// The same dots and context, each value transformed.
  package func mapValues(_ transform: (Value) -> Value) -> DotKernel {
    DotKernel(
      entries: entries.compactMapValues { siblings in
        DotSiblings(
          sorted: siblings.elements.map { DottedValue(dot: $0.dot, value: transform($0.value)) })
      }, context: context, retiredKeys: retiredKeys)
  }
}
