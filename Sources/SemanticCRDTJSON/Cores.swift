/// How many cores a read may use. Only the caller knows whether a second one is free: an app
/// loading its file at launch has one to spare; a server decoding many peers' states at once
/// does not. So the codec never decides on its own: it uses two only when given ``two``.
public enum Cores: Sendable {
  /// Everything on the calling thread.
  case one
  /// Long arrays of map and set entries are read in two halves, one on another thread.
  case two
}
