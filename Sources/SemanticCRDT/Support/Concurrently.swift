import Dispatch

/// Runs `second` on another thread while `first` runs on this one, and returns both results
/// once both are done. It always waits for `second`, even when `first` throws, so both may
/// borrow what the caller holds (buffers, closures) for exactly the length of the call.
///
/// For work split in two independent halves: they must share no mutable state.
@usableFromInline
func concurrently<First, Second, Failure: Error>(
  _ first: () throws(Failure) -> First, _ second: () -> Second
) throws(Failure) -> (First, Second) {
  try withoutActuallyEscaping(second) { second throws(Failure) in
    let other = OtherThread(second)
    let firstResult: First
    do throws(Failure) {
      firstResult = try first()
    } catch {
      _ = other.result()
      throw error
    }
    return (firstResult, other.result())
  }
}

/// One piece of work on a thread of the global queue; see ``concurrently(_:_:)``.
///
/// Unchecked sendability: `work` and `value` are touched by the worker only before it
/// signals `done`, and by the caller only after it has waited for `done`.
@usableFromInline
final class OtherThread<Value>: @unchecked Sendable {
  private var work: (() -> Value)?
  private var value: Value?
  private let done = DispatchSemaphore(value: 0)

  @usableFromInline
  init(_ work: @escaping () -> Value) {
    self.work = work
    DispatchQueue.global(qos: .userInitiated).async { [self] in
      value = self.work?()
      // Released before signalling: once the caller has waited, nothing holds the closure,
      // which does not escape the caller's call.
      self.work = nil
      done.signal()
    }
  }

  /// Waits for the work and returns what it made.
  @usableFromInline
  func result() -> Value {
    done.wait()
    return value!
  }
}
