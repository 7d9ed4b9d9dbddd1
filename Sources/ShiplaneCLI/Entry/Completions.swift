import Foundation
import Shiplane

/// Shell completions from the command tree: `shiplane --generate-completion-script bash|zsh|fish`.
/// Built-in commands and their options come from the tree itself; lane names from the `Lanes/`
/// of the repository the shell is in, read as text, and a lane's options from the catalog its
/// compiled lanes left in the cache: completing never compiles or runs a lane.
extension ShiplaneCommand {
    /// Prints the completion script for `shell` (bash, zsh or fish): swift-argument-parser's,
    /// for the built-in commands and their options, and a few lines that add the lane names of
    /// the repository being completed in (`shiplane ---lane-names`) where a command goes.
    static func printScript(shell: String?, environment: [String: String]) -> Int32 {
        guard let shell, let kind = CompletionShell(rawValue: shell), ["bash", "zsh", "fish"].contains(shell) else {
            return CommandSession.fail(
                UsageError(
                    "--generate-completion-script needs a shell: bash, zsh or fish" + (shell.map { ", not \($0)" } ?? ""),
                    suggestion: "for example: shiplane --generate-completion-script bash > /etc/bash_completion.d/shiplane"
                ),
                arguments: [], environment: environment, currentDirectory: FileManager.default.currentDirectoryPath
            )
        }
        print(completionScript(for: kind) + lanesAddition(shell))
        return ShiplaneExitCode.success.rawValue
    }

    private static func lanesAddition(_ shell: String) -> String {
        let commandWords = commandNames.filter { $0 != "help" }.joined(separator: " ")
        switch shell {
        case "bash":
            return """

            # Lane names from Lanes/ of the repository around the current folder.
            # A lane's options from what its compiled lanes said of them (never compiles).
            _shiplane_and_lanes() {
                local current="${COMP_WORDS[COMP_CWORD]}" offered prefix=""
                if [ "$COMP_CWORD" -ge 2 ]; then
                    # The words before the one completed. bash splits `--bump=minor` and
                    # `bump:minor` at `=` and `:` (COMP_WORDBREAKS): they are joined back, and the
                    # option whose value is completed ends as `--bump=` or `bump:`. Where
                    # COMP_WORDBREAKS lacks them, the word itself holds that prefix, and the
                    # values are offered with it.
                    local -a before=()
                    local index word glue=0
                    for (( index = 1; index < COMP_CWORD; index++ )); do
                        word="${COMP_WORDS[index]}"
                        if [[ "$word" == "=" || "$word" == ":" ]] && [ "${#before[@]}" -gt 0 ]; then
                            before[${#before[@]}-1]+="$word"
                            glue=1
                        elif [ "$glue" = 1 ]; then
                            before[${#before[@]}-1]+="$word"
                            glue=0
                        else
                            before+=("$word")
                        fi
                    done
                    if [[ "$current" == "=" || "$current" == ":" ]]; then
                        before[${#before[@]}-1]+="$current"
                        current=""
                    elif [ "$glue" = 1 ]; then
                        :
                    elif [[ "$current" =~ ^([^=:]*[=:])(.*)$ ]]; then
                        prefix="${BASH_REMATCH[1]}"
                        current="${BASH_REMATCH[2]}"
                        before+=("$prefix")
                    fi
                    # After a lane's name: only its options (or an option's values), never commands.
                    if offered="$(shiplane ---lane-options "${before[@]}" 2>/dev/null)"; then
                        COMPREPLY=($(compgen -P "$prefix" -W "$offered" -- "$current"))
                        return
                    fi
                    if [ "$COMP_CWORD" -eq 2 ] && [ "${COMP_WORDS[1]}" = help ]; then
                        COMPREPLY=($(compgen -W "\(commandWords)" -- "$current"))
                        return
                    fi
                fi
                _shiplane "$@"
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY+=($(compgen -W "$(shiplane ---lane-names 2>/dev/null)" -- "$current"))
                fi
            }
            complete -o filenames -F _shiplane_and_lanes shiplane

            """
        case "zsh":
            return """

            # Lane names from Lanes/ of the repository around the current folder.
            # A lane's options from what its compiled lanes said of them (never compiles).
            _shiplane_and_lanes() {
                if (( CURRENT > 2 )); then
                    # After a lane's name: only its options (or an option's values), never commands.
                    # `--bump=mi` and `bump:mi` complete the option's values after the prefix.
                    local offered prefix=""
                    [[ ${words[CURRENT]} =~ '^([^=:]*[=:])' ]] && prefix=$match[1]
                    if offered="$(shiplane ---lane-options "${(@)words[2,CURRENT-1]}" ${prefix:+"$prefix"} 2>/dev/null)"; then
                        local -a options
                        options=(${(f)offered})
                        [[ -n $prefix ]] && compset -P '*[=:]'
                        (( ${#options} )) && compadd -a options
                        return
                    fi
                    if (( CURRENT == 3 )) && [[ ${words[2]} == help ]]; then
                        compadd \(commandWords)
                        return
                    fi
                fi
                _shiplane "$@"
                if (( CURRENT == 2 )); then
                    local -a lanes
                    lanes=(${(f)"$(shiplane ---lane-names 2>/dev/null)"})
                    (( ${#lanes} )) && compadd -a lanes
                fi
            }
            compdef _shiplane_and_lanes shiplane

            """
        default:
            return """

            # Lane names from Lanes/ of the repository around the current folder.
            complete -c shiplane -n '__fish_use_subcommand' -f -a '(shiplane ---lane-names 2>/dev/null)' -d 'lane'
            # A lane's options from what its compiled lanes said of them (never compiles); in
            # `--bump=mi` and `bump:mi`, the option's values after the prefix.
            function __shiplane_lane_options
                set -l current (commandline -ct)
                set -l prefix (string match -r -- '^[^=:]*[=:]' "$current")
                if test -n "$prefix"
                    for value in (shiplane ---lane-options (commandline -opc)[2..-1] $prefix 2>/dev/null)
                        echo $prefix$value
                    end
                else
                    shiplane ---lane-options (commandline -opc)[2..-1] 2>/dev/null
                end
            end
            complete -c shiplane -n 'not __fish_use_subcommand' -f -a '(__shiplane_lane_options)' -d 'lane option'
            # The commands `help` explains.
            complete -c shiplane -n '__fish_seen_subcommand_from help' -f -a '\(commandWords)'

            """
        }
    }

    /// The names of the lanes the command line can run, declared in `Lanes/*.swift` of the
    /// repository around the current folder: a private lane (`static let isPrivate = true`) is
    /// left out, as `shiplane lanes` leaves it out.
    static func laneNames() -> [String] {
        guard let root = try? GitSettings.workTreeRoot(from: FileManager.default.currentDirectoryPath),
              let files = try? LaneCompiler.laneFiles(in: root + "/Lanes", root: root) else { return [] }
        let sources = files.compactMap { file in
            FileManager.default.contents(atPath: file).map { (path: file, text: String(decoding: $0, as: UTF8.self)) }
        }
        let found = LaneDiscovery.scan(sources)
        return found.lanes.filter { !found.privateLanes.contains($0) }.map(laneName(forType:)).sorted()
    }

    /// What completes after `words` (what was typed after `shiplane`, global options first) when
    /// they start with a lane's name: its options not given yet, or the values of the option
    /// whose value is being typed — after `--bump`, or in the same word, which the shell script
    /// passes as the last word: `--bump=` and fastlane's `bump:` (a flag's `true` and `false`
    /// there). The options come from the catalog the compiled lanes left in the cache: none when
    /// they have not been compiled since the lanes last changed. Nil when the words name no lane
    /// (the shell then completes the built-in commands). Completing never compiles or runs a lane.
    static func laneCompletions(words: [String], environment: [String: String], executable: String) -> [String]? {
        guard let (_, rest) = try? CommandLineWords.split(words), let name = rest.first,
              !commandNames.contains(name), laneNames().contains(name) else { return nil }
        guard let root = try? GitSettings.workTreeRoot(from: FileManager.default.currentDirectoryPath, environment: environment),
              let toolchain = try? Toolchain.locate(environment: environment, executable: executable) else { return [] }
        let compiler = LaneCompiler(toolchain: toolchain, cacheFolder: LaneCompiler.defaultCacheFolder(environment: environment), environment: environment)
        guard FileManager.default.fileExists(atPath: compiler.cacheFolder + "/lanes"),
              let lane = compiler.cachedExecutable(root: root)?.catalog?.lanes.first(where: { $0.name == name && !$0.isPrivate })
        else { return [] }
        let given = rest.dropFirst()
        if let last = given.last, let (option, keyForm) = optionTakingValue(in: last, of: lane) {
            return option.kind == "flag" ? (keyForm ? ["true", "false"] : []) : option.values ?? []
        }
        if let previous = given.last, let option = lane.options.first(where: { $0.name == previous }), option.kind == "option" {
            return option.values ?? []
        }
        let named = Set(given.map(optionName(of:)))
        return lane.options.filter { $0.kind != "positional" && !named.contains($0.name) }.map(\.name)
    }

    /// The option whose value `word` begins in the same word, `--bump=` or `bump:` (true: the
    /// fastlane form), or nil.
    private static func optionTakingValue(in word: String, of lane: LaneDescription) -> (LaneDescription.OptionDescription, Bool)? {
        if word.hasPrefix("--"), word.hasSuffix("="), let option = lane.options.first(where: { $0.name == String(word.dropLast()) }),
           option.kind == "option" {
            return (option, false)
        }
        guard !word.hasPrefix("-"), word.hasSuffix(":"),
              let option = lane.options.first(where: { $0.name == "--" + kebabCase(String(word.dropLast())) }), option.kind != "positional"
        else { return nil }
        return (option, true)
    }

    /// The option a word gives (`--bump` for `--bump`, `--bump=minor` and `bump:minor`), or the word.
    private static func optionName(of word: String) -> String {
        if word.hasPrefix("--") { return word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word }
        guard !word.hasPrefix("-"), let colon = word.firstIndex(of: ":") else { return word }
        return "--" + kebabCase(String(word[..<colon]))
    }
}
