import Foundation
import Shiplane

/// Undoing lane code's own effect types outside the run: the supervisor after a kill and
/// `shiplane rollback` do not know them, so they ask the lane program that declares them.
///
/// The request is a file in the run folder (`.git/shiplane/undo-effect.json`): the work tree, the
/// effect as the record keeps it and its status. The lane program
/// (`lanes --shiplane-undo-effect FILE`) decodes it with the types its lane files declare and
/// runs the effect's one `undo(in:status:)` against the live dependencies, as the built-in
/// effects are undone. Exit 0: undone; 3: it stays by design (`EffectStays`), the reason on
/// standard error; anything else: the undo failed, the reason on standard error.
package enum LaneEffectUndo {
    /// The lane program's argument that asks it to undo one effect.
    package static let argument = "--shiplane-undo-effect"
    static let staysExitCode: Int32 = 3

    struct Request: Codable {
        var workTree: String
        var status: RecordedEffect.Status
        var effect: AnyEffect
    }

    /// The undo that hands an unknown effect to `program` (the compiled lanes); `program` is asked
    /// for when the first such effect comes, so a rollback with none compiles nothing.
    package static func elsewhere(
        workTree: String, store: RunStore, environment: [String: String], program: @escaping @Sendable () throws -> String
    ) -> UndoElsewhere {
        { effect, status in
            let executable: String
            do {
                executable = try program()
            } catch {
                throw ShiplaneError("an effect of kind \(effect.kind), declared in lane code: its lane program is not available (\(describe(error))); left as it is")
            }
            let file = store.folder + "/undo-effect.json"
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try writeAtomically(try encoder.encode(Request(workTree: workTree, status: status, effect: effect)), to: file)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let result = try await LiveProcessRunner().run(
                ProcessInvocation(executable: executable, arguments: [argument, file], workingDirectory: workTree, environment: environment, timeout: 600)
            ) { _, _ in }
            let reason = result.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
            switch result.exitCode {
            case 0: return
            case staysExitCode: throw EffectStays(reason.isEmpty ? "\(effect.kind) stays" : reason)
            default: throw ShiplaneError(reason.isEmpty ? "the lane program could not undo the \(effect.kind) effect (exit \(result.exitCode))" : reason)
            }
        }
    }

    /// In the lane program: undoes the effect the request file names and returns the exit code.
    static func undo(requestFile: String, environment: [String: String]) async -> Int32 {
        func fail(_ message: String, _ code: Int32 = 1) -> Int32 {
            FileHandle.standardError.write(Data((message + "\n").utf8))
            return code
        }
        guard let data = FileManager.default.contents(atPath: requestFile),
              let request = try? JSONDecoder().decode(Request.self, from: data) else {
            return fail("the undo request \(requestFile) cannot be read")
        }
        guard let effect = request.effect.value else {
            return fail("no effect type of kind \(request.effect.kind) is declared in Lanes/ (was it renamed or removed since the run?); left as it is")
        }
        do {
            let store = try RunStore.forWorkTree(request.workTree)
            let context = EffectContext.live(store: store, workTree: request.workTree, environment: LaneEnvironment(variables: environment))
            try await effect.undo(in: context, status: request.status)
            return 0
        } catch let staying as EffectStays {
            return fail(staying.message, staysExitCode)
        } catch {
            return fail(describe(error))
        }
    }
}
