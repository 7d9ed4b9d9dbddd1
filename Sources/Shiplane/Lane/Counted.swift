/// `count` and `noun`, the noun plural unless the count is one: "1 step", "3 commits".
package func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
