import ForagerSync

extension SyncMessage {
  /// The message as a build that reads format 4 at most writes it: the same, not compact
  /// (docs/decisions/0044).
  public var asWrittenByAFormat4Build: SyncMessage {
    SyncMessage(
      household: household, sender: sender, through: through, since: since,
      recipient: recipient, acknowledged: acknowledged, state: state,
      senderVersion: senderVersion)
  }
}
