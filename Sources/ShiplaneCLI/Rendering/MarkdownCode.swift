/// `text` as a Markdown code span that holds it whole: fenced by one backtick more than its
/// longest run of backticks, padded with a space when it starts or ends with one (CommonMark
/// strips one space from each side), so a value with a backtick cannot end the span early.
func codeSpan(_ text: String) -> String {
    let fence = String(repeating: "`", count: longestBacktickRun(in: text) + 1)
    let pad = text.hasPrefix("`") || text.hasSuffix("`") ? " " : ""
    return fence + pad + text + pad + fence
}

/// The length of the longest run of backticks in `text`.
func longestBacktickRun(in text: String) -> Int {
    var longest = 0, run = 0
    for character in text {
        run = character == "`" ? run + 1 : 0
        longest = max(longest, run)
    }
    return longest
}
