#pragma once
// User input echoed in messages (README "Exit status": one line naming the value and the fix).
// Every message that repeats a value, key, name or path the user gave quotes it with quote(),
// and every number it computes is written with num(), so that a 1 MB value, a NUL, raw binary
// bytes or a 300-digit number never reach the terminal: unprintable bytes are escaped (\xNN,
// \n, \t, \r, \\; valid UTF-8 is kept), long values are cut to their first and last bytes with
// their size, `'aaaa...aaaa' (1048576 bytes)`. liebench_main passes every message through
// printable() as a last guard (a site that forgot quote()).
#include <cstddef>
#include <string>
#include <string_view>

namespace lie {

/// Longest quoted value (escaped bytes, without the quotes): 120 from its start and 40 from its
/// end (a path's file name) when cut.
inline constexpr std::size_t kQuoteMax = 160;

/// `'s'` escaped, cut to kQuoteMax characters with its size if longer: `'head...tail' (N bytes)`.
std::string quote(std::string_view s);

/// s escaped as in quote() but for backslashes (a message's quoted values keep their escapes),
/// without quotes, cut to `max` characters: `start... (N bytes)`.
std::string printable(std::string_view s, std::size_t max);

/// x in the shortest text that reads back as the same double (at most 17 significant digits,
/// C++17 std::to_chars): 1e-300 is "1e-300", 0.1 is "0.1", never fixed-point digits by the
/// hundred as std::to_string prints them.
std::string num(double x);

}  // namespace lie
