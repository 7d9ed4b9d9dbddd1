import Foundation
import Shiplane

/// A monorepo's release plan (`PackagePlan`) as the CI that runs it reads it: one job per
/// package, each after the packages it depends on. GitLab's `needs:` and Buildkite's
/// `depends_on` order the jobs themselves; a GitHub Actions matrix cannot, so `--format github`
/// lists one wave, and a workflow runs a matrix job per wave (`needs:` the one before).
struct PackagesMatrix {
    var plan: PackagePlan

    /// The formats `shiplane version --changed --format` takes.
    static let formats = ["json", "github", "gitlab", "buildkite", "text"]

    /// The plan in `format`; `wave` limits `github` to one wave (the first when nil).
    /// - Throws: `UsageError` for a format not in `formats`.
    func rendered(as format: String, wave: Int?) throws -> String {
        switch format {
        case "json": return json
        case "github": return github(wave: wave ?? 1)
        case "gitlab": return gitlab
        case "buildkite": return buildkite
        case "text": return text
        default: throw UsageError("--format takes \(Self.formats.joined(separator: ", ")), not \(format)", suggestion: "write --format json, github, gitlab or buildkite")
        }
    }

    /// The whole plan: `{"head":…,"waves":[[…]],"packages":[{name, path, level, reason, lastTag, …, wave, after, command}],"unchanged":N}`.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        struct Document: Encodable {
            var head: String
            var waves: [[String]]
            var packages: [PackagePlan.Part]
            var unchanged: Int
        }
        let document = Document(head: plan.head, waves: plan.waves, packages: plan.parts, unchanged: plan.unchanged)
        return (try? String(decoding: encoder.encode(document), as: UTF8.self)) ?? "{}"
    }

    /// `{"include":[{"part":…,"package":…,"level":…,"wave":…,"runs-on":…,"command":…}]}` for one
    /// wave, for `fromJSON` (a lane's parts have the same `part`, `runs-on` and `command`, so one
    /// workflow runs either); a wave past the last is `{"include":[]}`.
    func github(wave: Int) -> String {
        let rows = plan.parts.filter { $0.wave == wave }.map { part in
            JSONText.object([
                ("part", part.name), ("package", part.name), ("level", part.level), ("wave", String(part.wave)),
                ("runs-on", "ubuntu-latest"), ("command", part.command),
            ])
        }
        return "{\"include\":[" + rows.joined(separator: ",") + "]}"
    }

    /// A child pipeline: a stage per wave, one job per package, `needs:` the planned packages it
    /// depends on.
    var gitlab: String {
        var lines = ["# shiplane plan --format gitlab: one job per package, each after its dependencies"]
        if plan.parts.isEmpty {
            // A child pipeline needs a job: one that says there is nothing to release.
            return (lines + ["\"nothing to release\":", "  script:", "    - \"echo no package changed since its last release\""]).joined(separator: "\n")
        }
        lines.append("stages: [" + plan.waves.indices.map { quoted("wave-\($0 + 1)") }.joined(separator: ", ") + "]")
        lines.append("")
        for part in plan.parts {
            lines += [quoted("release:" + part.name) + ":", "  stage: " + quoted("wave-\(part.wave)"),
                      "  needs: [" + part.after.map { quoted("release:" + $0) }.joined(separator: ", ") + "]",
                      "  resource_group: " + quoted("release-" + part.name), "  script:", "    - " + quoted(part.command), ""]
        }
        return lines.joined(separator: "\n")
    }

    /// A pipeline upload: one step per package, `depends_on` the planned packages it depends on.
    var buildkite: String {
        var lines = ["# shiplane plan --format buildkite | buildkite-agent pipeline upload", "steps:"]
        for part in plan.parts {
            lines += ["  - label: " + quoted("release \(part.name) (\(part.level))"), "    key: " + quoted("release-" + part.name),
                      "    command: " + quoted(part.command), "    concurrency: 1", "    concurrency_group: " + quoted("shiplane/release-" + part.name)]
            if !part.after.isEmpty { lines.append("    depends_on: [" + part.after.map { quoted("release-" + $0) }.joined(separator: ", ") + "]") }
        }
        if plan.parts.isEmpty { lines.append("  - command: \"echo no package changed since its last release\"") }
        return lines.joined(separator: "\n")
    }

    /// For people: one line per package, wave by wave.
    var text: String {
        guard !plan.parts.isEmpty else { return "Nothing to release: no package changed since its last release tag (\(plan.unchanged) unchanged)." }
        var lines: [String] = []
        let width = plan.parts.map(\.name.count).max() ?? 0
        for (number, wave) in plan.waves.enumerated() {
            lines.append("wave \(number + 1):")
            for name in wave {
                guard let part = plan.parts.first(where: { $0.name == name }) else { continue }
                let last = part.lastTag.map { "since \($0)" } ?? "no release yet"
                lines.append("  " + part.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(part.level.padding(toLength: 5, withPad: " ", startingAt: 0))  \(part.reason) (\(last))")
            }
        }
        lines.append("\(plan.parts.count) to release, \(plan.unchanged) unchanged. Each job runs: \(PackagePlan.command(package: "NAME", level: "LEVEL"))")
        return lines.joined(separator: "\n")
    }

    private func quoted(_ value: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = (try? encoder.encode(value)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
