import Foundation
import Shiplane

/// Turns fastlane-style `key:value` arguments into `--key value` (or `--key` for a flag).
///
/// Only words whose key names an option of the lane are converted, so a positional value with a
/// colon (a URL) stays as it is. Keys may be written `build_number`, `buildNumber` or
/// `build-number`. A flag takes `true`/`yes`/`1` (set) or `false`/`no`/`0` (left unset).
func convertKeyValueArguments(_ arguments: [String], options: [OptionInfo]) -> [String] {
    var byName: [String: OptionInfo] = [:]
    for option in options {
        for name in option.longNames { byName[name] = option }
    }
    var result: [String] = []
    var passThrough = false
    for argument in arguments {
        if passThrough || argument.hasPrefix("-") {
            if argument == "--" { passThrough = true }
            result.append(argument)
            continue
        }
        guard let colon = argument.firstIndex(of: ":") else { result.append(argument); continue }
        let rawKey = String(argument[..<colon])
        let value = String(argument[argument.index(after: colon)...])
        let key = kebabCase(rawKey)
        guard let option = byName[key] else { result.append(argument); continue }
        if option.kind == "flag" {
            switch value.lowercased() {
            case "true", "yes", "1", "": result.append("--\(key)")
            case "false", "no", "0": continue
            default: result.append(argument)
            }
        } else {
            result.append("--\(key)")
            result.append(value)
        }
    }
    return result
}
