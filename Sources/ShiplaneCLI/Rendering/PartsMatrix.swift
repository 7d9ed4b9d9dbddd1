import Foundation
import Shiplane

/// The parts of a lane's release (`lane.part`) as the CI that runs them reads a matrix:
/// GitHub Actions' `strategy.matrix` (JSON for `fromJSON`), a GitLab child pipeline, a Buildkite
/// pipeline upload, or plain JSON. Each part carries its runner's needs (os, arch) and the command
/// its job runs; the GitLab and Buildkite pipelines end with the fan-in job, after every part.
struct PartsMatrix {
    var lane: String
    var arguments: [String]
    var parts: [PlannedPart]

    /// The formats `shiplane plan --format` takes.
    static let formats = ["github", "gitlab", "buildkite", "json"]

    /// The format the CI running this names (GITHUB_ACTIONS, GITLAB_CI, BUILDKITE), else JSON.
    static func detectedFormat(environment: [String: String]) -> String {
        if environment["GITHUB_ACTIONS"] == "true" { return "github" }
        if environment["GITLAB_CI"] != nil { return "gitlab" }
        if environment["BUILDKITE"] == "true" { return "buildkite" }
        return "json"
    }

    /// The command a part's job runs (`nil`: the fan-in job's).
    func command(part: String?) -> String {
        let words = ["shiplane", lane] + (part.map { ["--part", $0] } ?? ["--fan-in"]) + arguments
        return words.map(RunRecord.shellQuoted).joined(separator: " ")
    }

    /// The GitHub-hosted runner label for a part's needs.
    static func githubRunner(_ part: PlannedPart) -> String {
        switch (part.os?.lowercased(), part.arch?.lowercased()) {
        case ("macos"?, "x86_64"?), ("macos"?, "amd64"?): "macos-13"
        case ("macos"?, _): "macos-14"
        case ("windows"?, _): "windows-latest"
        case (_, "arm64"?), (_, "aarch64"?): "ubuntu-24.04-arm"
        default: "ubuntu-latest"
        }
    }

    /// The matrix in `format`.
    /// - Throws: `UsageError` for a format that is not one of `formats`.
    func rendered(as format: String) throws -> String {
        switch format {
        case "github": return github
        case "gitlab": return gitlab
        case "buildkite": return buildkite
        case "json": return json
        default:
            throw UsageError("plan --format takes \(Self.formats.joined(separator: ", ")), not \(format)", suggestion: "write --format github, gitlab, buildkite or json")
        }
    }

    /// `{"include":[{"part":…,"os":…,"arch":…,"runs-on":…,"command":…}]}` on one line, for
    /// `strategy.matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}`.
    var github: String {
        let rows = parts.map { part in
            JSONText.object([
                ("part", part.name), ("os", part.os ?? ""), ("arch", part.arch ?? ""), ("runs-on", Self.githubRunner(part)),
                ("command", command(part: part.name)),
            ])
        }
        return "{\"include\":[" + rows.joined(separator: ",") + "]}"
    }

    /// A child pipeline: one job per part (runner tags: its os and arch), then the fan-in job,
    /// which needs them all.
    var gitlab: String {
        var lines = ["# shiplane plan \(lane) --format gitlab: one job per part, then the fan-in job", "stages: [parts, fan-in]", ""]
        for part in parts {
            lines += ["\(YAMLText.quoted("part:" + part.name)):", "  stage: parts"]
            let tags = [part.os, part.arch].compactMap { $0 }
            if !tags.isEmpty { lines.append("  tags: [" + tags.map(YAMLText.quoted).joined(separator: ", ") + "]") }
            lines += ["  script:", "    - " + YAMLText.quoted(command(part: part.name)), ""]
        }
        lines += ["\"fan-in\":", "  stage: fan-in", "  needs: [" + parts.map { YAMLText.quoted("part:" + $0.name) }.joined(separator: ", ") + "]",
                  "  script:", "    - " + YAMLText.quoted(command(part: nil))]
        return lines.joined(separator: "\n")
    }

    /// A pipeline upload: one step per part (agent targeting: its os and arch), then the fan-in
    /// step, which depends on them all.
    var buildkite: String {
        var lines = ["# shiplane plan \(lane) --format buildkite | buildkite-agent pipeline upload", "steps:"]
        for part in parts {
            lines += ["  - label: " + YAMLText.quoted("\(lane): \(part.name)"), "    key: " + YAMLText.quoted("part-" + part.name),
                      "    command: " + YAMLText.quoted(command(part: part.name))]
            let agents = [("os", part.os), ("arch", part.arch)].compactMap { key, value in value.map { "      \(key): " + YAMLText.quoted($0) } }
            if !agents.isEmpty { lines += ["    agents:"] + agents }
        }
        lines += ["  - label: " + YAMLText.quoted("\(lane): fan-in"), "    key: \"fan-in\"",
                  "    depends_on: [" + parts.map { YAMLText.quoted("part-" + $0.name) }.joined(separator: ", ") + "]",
                  "    command: " + YAMLText.quoted(command(part: nil))]
        return lines.joined(separator: "\n")
    }

    /// `{"lane":…,"parts":[{"name":…,"os":…,"arch":…,"command":…}],"fanIn":…}`.
    var json: String {
        let rows = parts.map { part in
            JSONText.object([("name", part.name), ("os", part.os ?? ""), ("arch", part.arch ?? ""), ("command", command(part: part.name))])
        }
        return "{\"lane\":" + JSONText.string(lane) + ",\"parts\":[" + rows.joined(separator: ",") + "],\"fanIn\":" + JSONText.string(command(part: nil)) + "}"
    }
}

/// JSON text written by hand, keys in the order given (a matrix reads best in its own order).
enum JSONText {
    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + string($0.1) }.joined(separator: ",") + "}"
    }
}

/// YAML scalars written by hand: double-quoted, which YAML reads with JSON's escapes.
enum YAMLText {
    static func quoted(_ value: String) -> String { JSONText.string(value) }
}
