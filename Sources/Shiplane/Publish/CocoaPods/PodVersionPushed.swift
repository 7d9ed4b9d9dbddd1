import Foundation

/// A pod version this run pushed to CocoaPods trunk. Written down before the push (the run passes
/// its point of no return right before it). Trunk publishes it to the public Specs repository,
/// and its removal (`pod trunk delete`) is itself permanent, so it stays.
struct PodVersionPushed: Effect, Equatable {
    static let kind = "cocoapods.trunk"
    var trunk: String
    var name: String
    var version: String

    var reach: EffectReach { .permanent }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        throw EffectStays("\(name) \(version) stays on CocoaPods trunk: pushed specifications are public; pod trunk deprecate or pod trunk delete (which can never be pushed again) if it must go")
    }
}
