import Dispatch
import Foundation

/// Runs `second` on another thread while `first` runs on this one, and returns both results
/// once both are done: the libraries' one way to use a second core (the simulator's checks of
/// states after merges, which run behind the run rather than beside one call, keep a queue of
/// their own: `SoundnessChecks`).
///
/// The compiler checks the split: `second` is `@Sendable`, so it shares no mutable state with
/// `first`, and its result is `sending`, so nothing the other thread still holds reaches the
/// caller. It always waits for `second`, even when `first` throws, so both may borrow what the
/// caller holds for exactly the length of the call.
///
/// Only a caller that owns the cores calls it (see docs/architecture.md): no property, merge or
/// read of the libraries decides on its own to start a thread.
public func concurrently<First, Second, Failure: Error>(
  _ first: () throws(Failure) -> First, _ second: @Sendable () -> sending Second
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

/// One piece of work on a thread of the global queue, and the slot its result comes back in.
///
/// Unchecked sendability, the one the package keeps: `work` and `value` are touched by the
/// worker only before it signals `done`, and by the caller only after it has waited for
/// `done`. The semaphore orders the two, which the compiler cannot see; `Mutex`, which it can,
/// needs iOS 18 and macOS 15.
private final class OtherThread<Value>: @unchecked Sendable {
  private var work: (@Sendable () -> sending Value)?
  private var value: Value?
  private let done = DispatchSemaphore(value: 0)

  init(_ work: @escaping @Sendable () -> sending Value) {
    self.work = work
    DispatchQueue.global(qos: .userInitiated).async { [self] in
      value = self.work?()
      // Released before signalling: once the caller has waited, nothing holds the closure,
      // which must not outlive the caller's call (`withoutActuallyEscaping` checks).
      self.work = nil
      done.signal()
    }
  }

  /// Waits for the work and returns what it made.
  func result() -> Value {
    done.wait()
    return value.take()!
  }
}

/// A value one thread posts once and another looks for without waiting: how
/// ``concurrently(_:_:)``'s second thread tells the first something it found while both run.
///
/// Looking is a lock taken and released, tens of nanoseconds. It was a semaphore's wait with a
/// timeout of `.now()`, which is a time, not `DISPATCH_TIME_NOW`: each look was a timed wait in
/// the kernel, 53 µs on Linux, and the first thread of a long array's read, looking every
/// 16 elements, ran at a quarter of its speed until the second had posted (docs/benchmarks.md).
///
/// Unchecked sendability, as ``OtherThread``'s: `posted` is read and written under `lock`;
/// `seen` is the reader's alone.
public final class Announcement<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var posted: Value?
  private var seen: Value?
  private let signal = DispatchSemaphore(value: 0)

  public init() {}

  /// Posts `value`; call once.
  public func post(_ value: Value) {
    lock.lock()
    posted = value
    lock.unlock()
    signal.signal()
  }

  /// The value if it has been posted, without waiting; `nil` until then. Only one thread may
  /// read (the one that did not post).
  ///
  /// - Complexity: O(1); until the value arrives, an uncontended lock taken and released.
  public var value: Value? {
    if let seen { return seen }
    lock.lock()
    seen = posted
    lock.unlock()
    return seen
  }

  /// Waits until the value has been posted. Only the thread that reads ``value`` may wait.
  public func wait() {
    guard seen == nil else { return }
    signal.wait()
    _ = value
  }
}

/// Bytes that ``concurrently(_:_:)``'s second thread reads while the caller reads them too.
///
/// Unchecked sendability: a buffer pointer is not `Sendable` because nothing stops a write or
/// a release while another thread reads. Here nothing writes, and the caller keeps the bytes
/// alive until `concurrently` returns, which is after the other thread has finished.
public struct BorrowedBytes: @unchecked Sendable {
  public let buffer: UnsafeBufferPointer<UInt8>

  public init(_ buffer: UnsafeBufferPointer<UInt8>) {
    self.buffer = buffer
  }
}
