import Foundation

/// A version a Gradle script builds from parts it sets as numbers:
/// `val versionMajor = 2` … `versionName = "${versionMajor}.${versionMinor}.${versionPatch}"`,
/// and a `versionCode` computed from them (`versionMajor * 10000 + versionMinor * 100 + versionPatch`).
///
/// The parts are read and bumped as the parts they are (a patch bump changes `versionPatch = 0`
/// to `1`, nothing else); the template and the computed code are never rewritten. Any other
/// computed value is refused with its line (`GradleComputedValue`): a guess would corrupt the script.
struct GradleVersionParts {
    /// The integer variables the script sets (`val versionMajor = 2`, `def versionMinor = 5`,
    /// `ext.versionPatch = 0`, `versionPatch = 0` in an `ext { }` block), each with every place it is set.
    private(set) var integers: [String: [LocatedValue]] = [:]

    /// Finds every integer variable set in `text`.
    /// - Throws: `VersionFileError.bug` when a built-in pattern does not compile.
    init(_ text: VersionText) throws {
        let definition = try NSRegularExpression.builtIn(
            #"^\s*(?:(?:const\s+)?(?:def|val|var)\s+(?:int\s+|Integer\s+)?|(?:project\.|rootProject\.)?ext(?:ra)?\.|extra\[")?([A-Za-z_][A-Za-z0-9_]*)"?\]?\s*(?::\s*Int\s*)?=\s*([0-9]+)\s*;?\s*(?://.*)?$"#
        )
        for index in text.lines.indices {
            guard let groups = text.matches(definition, inLine: index).first, let name = groups[1], let digits = groups[2] else { continue }
            integers[text.text(name), default: []].append(
                LocatedValue(range: digits, value: text.text(digits), label: "\(text.text(name)) (line \(index + 1))", key: text.text(name))
            )
        }
    }

    /// The names of a template made only of variables joined by dots (`"${major}.${minor}"`,
    /// `"$major.$minor.$patch"`), or nil for any other template.
    static func templateNames(_ template: String) -> [String]? {
        let pieces = template.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(pieces.count) else { return nil }
        var names: [String] = []
        for piece in pieces {
            var name = Substring(piece)
            guard name.hasPrefix("$") else { return nil }
            name = name.dropFirst()
            if name.hasPrefix("{") {
                guard name.hasSuffix("}") else { return nil }
                name = name.dropFirst().dropLast()
            }
            guard let first = name.first, first.isLetter || first == "_",
                  name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return nil }
            names.append(String(name))
        }
        return names
    }

    /// The version a template stands for, as a value whose `parts` are the variables' places.
    /// - Throws: `VersionFileError.unsupported` naming the line when the template is not made
    ///   of parts this script sets as numbers.
    func version(template: String, range: Range<Int>, label: String, line: Int, script: String) throws -> LocatedValue {
        guard let names = Self.templateNames(template) else {
            throw GradleComputedValue.error(key: "versionName", expression: "\"\(template)\"", line: line, script: script,
                                            why: "a template that is not its parts joined by dots")
        }
        var parts: [[LocatedValue]] = []
        for name in names {
            guard let places = integers[name] else {
                throw GradleComputedValue.error(key: "versionName", expression: "\"\(template)\"", line: line, script: script,
                                                why: "`\(name)` is not set to a number in this script")
            }
            guard places.allSatisfy({ $0.value == places[0].value }) else {
                throw VersionFileError(
                    .inconsistent, "The \(script) file sets \(name) to different values",
                    details: places.map { (key: $0.label, value: $0.value) }, suggestion: "Set \(name) once, then run again"
                )
            }
            parts.append(places)
        }
        let value = parts.map { String(Int($0[0].value) ?? 0) }.joined(separator: ".")
        var located = LocatedValue(range: range, value: value, label: label, isQuoted: true, key: "versionName")
        located.parts = parts
        return located
    }

    /// The build number a linear expression of this script's numbers computes
    /// (`versionMajor * 10000 + versionMinor * 100 + versionPatch`), or nil when the expression is another.
    func code(_ expression: String, range: Range<Int>, label: String) -> LocatedValue? {
        var total = 0
        let terms = expression.split(separator: "+", omittingEmptySubsequences: false)
        for term in terms {
            var product = 1
            var variables = 0
            for factor in term.split(separator: "*", omittingEmptySubsequences: false) {
                let word = factor.trimmingCharacters(in: .whitespaces)
                if let number = Int(word), word.allSatisfy(\.isASCIIDigit) {
                    product = product.multipliedReportingOverflow(by: number).partialValue
                } else if let places = integers[word], let number = Int(places[0].value) {
                    variables += 1
                    product = product.multipliedReportingOverflow(by: number).partialValue
                } else {
                    return nil
                }
            }
            guard variables > 0 || terms.count > 1 else { return nil }
            total = total.addingReportingOverflow(product).partialValue
        }
        var located = LocatedValue(range: range.lowerBound..<range.lowerBound, value: String(total), label: label, key: "versionCode")
        located.computedFrom = expression
        return located
    }

    /// The edits that write `version` into a template's parts.
    /// - Throws: `VersionFileError.invalidValue` when the parts cannot hold it (a prerelease,
    ///   or a third number for a template of two).
    static func edits(_ parts: [[LocatedValue]], version: SemanticVersion, label: String, script: String) throws -> [(range: Range<Int>, replacement: String)] {
        let numbers = [version.major, version.minor, version.patch]
        guard !version.isPrerelease, version.buildMetadata.isEmpty, numbers.dropFirst(parts.count).allSatisfy({ $0 == 0 }) else {
            throw VersionFileError(
                .invalidValue,
                "\(version) cannot be written to \(script): its versionName is made of \(parts.count) number\(parts.count == 1 ? "" : "s") (\(label))",
                suggestion: "Bump to a version of \(parts.count) number\(parts.count == 1 ? "" : "s")"
                    + (parts.count < 3 ? " (minor or major)" : "") + ", or add the part to the script's template"
            )
        }
        return zip(parts, numbers).flatMap { places, number in places.map { (range: $0.range, replacement: String(number)) } }
    }
}

/// A `versionName` or `versionCode` that Gradle computes in a way Shiplane cannot follow.
enum GradleComputedValue {
    /// Function calls that only read a property where it is written; any other call computes.
    static let readingCalls: Set<String> = [
        "property", "findProperty", "getProperty", "gradleProperty", "get", "getOrElse", "toInteger", "toInt",
        "parseInt", "valueOf", "toString", "orNull", "String", "Integer",
    ]

    /// True when `expression` computes its value (`projectVersionName.substringBefore("-")`,
    /// `"1." + minor`) instead of reading a property, a catalog entry or Flutter's values.
    static func computes(_ expression: String) -> Bool {
        var outside = ""
        var quote: Character?
        for character in expression {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
                outside.append("S")
            } else {
                outside.append(character)
            }
        }
        if outside.contains(where: { "+-*/?:%".contains($0) }) { return true }
        var word = ""
        for character in outside + " " {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
                continue
            }
            if character == "(", !word.isEmpty, !readingCalls.contains(word) { return true }
            word = ""
        }
        return false
    }

    /// The error for a computed value: its line, and how to write the version so it can be bumped.
    static func error(key: String, expression: String, line: Int, script: String, why: String? = nil) -> VersionFileError {
        let isVersion = key == "versionName"
        return VersionFileError(
            .unsupported,
            "\(key) in \(script) (line \(line)) is computed (`\(expression)`)" + (why.map { ": \($0)" } ?? "")
                + ", so Shiplane cannot tell which number to change",
            suggestion: isVersion
                ? "Write the version where Gradle reads it as it is: versionName = \"1.2.3\" in the script, a property in gradle.properties "
                    + "(VERSION_NAME=1.2.3, read as versionName = VERSION_NAME in Groovy or providers.gradleProperty(\"VERSION_NAME\").get() in Kotlin), "
                    + "an entry of gradle/libs.versions.toml, or numbered parts in the script "
                    + "(val versionMajor = 1 … versionName = \"${versionMajor}.${versionMinor}.${versionPatch}\")"
                : "Write the build number where Gradle reads it as it is: versionCode = 45 in the script, VERSION_CODE=45 in gradle.properties "
                    + "(read as versionCode = VERSION_CODE.toInteger()), or a sum of the script's numbered version parts "
                    + "(versionMajor * 10000 + versionMinor * 100 + versionPatch)"
        )
    }
}
