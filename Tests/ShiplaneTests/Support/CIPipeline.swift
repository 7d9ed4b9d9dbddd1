import Foundation
import Testing

/// A GitLab child pipeline or a Buildkite pipeline upload as `shiplane plan` prints it, read by
/// Ruby's YAML (not by our own code) and run as the CI would: each job once its `needs:` /
/// `depends_on` are done (a GitLab job without `needs:` after every job of earlier stages),
/// every ready job at once, each job's commands through `sh -c` with the built `shiplane` first
/// on PATH. A failed job fails the pipeline: jobs after it do not start.
struct CIPipeline {
    struct Job: Sendable {
        var name: String
        /// Jobs it waits for; nil: GitLab's stage order.
        var needs: [String]?
        var stage: Int
        var commands: [String]
    }

    var jobs: [Job]

    /// Parses `yaml` (`gitlab` or `buildkite`) with `ruby -ryaml`.
    init(yaml: String, format: String, scratch: String, environment: [String: String]) throws {
        let file = scratch + "/pipeline-\(UUID().uuidString).yml"
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let read = try runProgram("/usr/bin/ruby", ["-ryaml", "-rjson", "-e", "puts JSON.generate(YAML.safe_load(ARGF.read))", file], in: scratch, environment: environment)
        guard read.status == 0, let parsed = try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any] else {
            throw TestFailure("Ruby does not read the \(format) pipeline: \(read.all)\n\(yaml)")
        }
        if format == "gitlab" {
            let stages = parsed["stages"] as? [String] ?? ["test"]
            jobs = try parsed.keys.sorted().compactMap { name -> Job? in
                guard name != "stages", let job = parsed[name] as? [String: Any] else { return nil }
                guard let script = job["script"] as? [String] else { throw TestFailure("GitLab job \(name) has no script list") }
                let stage = (job["stage"] as? String).flatMap { stages.firstIndex(of: $0) } ?? 0
                return Job(name: name, needs: job["needs"] as? [String], stage: stage, commands: script)
            }
        } else {
            guard let steps = parsed["steps"] as? [[String: Any]] else { throw TestFailure("the Buildkite pipeline has no steps list") }
            jobs = try steps.enumerated().map { index, step in
                guard let command = step["command"] as? String else { throw TestFailure("Buildkite step \(index) has no command") }
                return Job(name: step["key"] as? String ?? "step-\(index)", needs: step["depends_on"] as? [String] ?? [], stage: 0, commands: [command])
            }
        }
        let names = Set(jobs.map(\.name))
        for job in jobs { for need in job.needs ?? [] where !names.contains(need) { throw TestFailure("\(job.name) needs \(need), which is no job") } }
    }

    /// Runs the jobs in the CI's order, each in its own checkout (`checkout`: its folder and
    /// environment), each command through `shell`. Returns the jobs in the order they finished;
    /// throws when a job failed or some job could never start.
    @discardableResult
    func run(checkout: @escaping @Sendable (Job) throws -> (folder: String, environment: [String: String])) async throws -> [String] {
        var done: [String] = []
        var started = Set<String>()
        func ready(_ job: Job) -> Bool {
            guard !started.contains(job.name) else { return false }
            if let needs = job.needs { return needs.allSatisfy(done.contains) }
            return jobs.allSatisfy { $0.stage >= job.stage || done.contains($0.name) }
        }
        try await withThrowingTaskGroup(of: (String, String?).self) { group in
            func startReady() {
                for job in jobs where ready(job) {
                    started.insert(job.name)
                    group.addTask {
                        let place = try checkout(job)
                        for line in job.commands {
                            let output = try await Self.shell(line, in: place.folder, environment: place.environment)
                            if output.status != 0 { return (job.name, "\(job.name): `\(line)` exited \(output.status): \(output.all)") }
                        }
                        return (job.name, nil)
                    }
                }
            }
            startReady()
            while let (name, failure) = try await group.next() {
                if let failure { throw TestFailure(failure) }
                done.append(name)
                startReady()
            }
        }
        guard done.count == jobs.count else {
            throw TestFailure("jobs never started (their needs are never met): \(jobs.map(\.name).filter { !done.contains($0) })")
        }
        return done
    }

    /// Runs `line` as a CI runner's shell does, the built `shiplane` first on PATH.
    static func shell(_ line: String, in folder: String, environment: [String: String]) async throws -> CommandOutput {
        var environment = environment
        let binaries = (shiplaneBinary as NSString).deletingLastPathComponent
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return try await runProgramAsync("/bin/sh", ["-c", line], in: folder, environment: environment)
    }
}
