#include "core/quote.hpp"

#include <charconv>
#include <cstdio>
#include <vector>

namespace lie {

namespace {

/// Length of the valid UTF-8 sequence at s[i] (2..4 bytes; RFC 3629 table 3-7: no overlongs,
/// no surrogates, at most U+10FFFF; not the C1 controls U+0080..U+009F), 0 if there is none.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned b0 = byte(i), b1 = byte(i + 1);
  const auto cont = [&](std::size_t k) { return (byte(k) & 0xC0u) == 0x80u; };
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(i + 1) && !(b0 == 0xC2 && b1 < 0xA0) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    const unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
    return b1 >= lo && b1 <= hi && cont(i + 2) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    const unsigned lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return b1 >= lo && b1 <= hi && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

/// The escaped text of the character at s[i]; `used` gets its length in bytes. A backslash is
/// doubled only in quoted values (`backslash`): a whole message keeps the escapes of its quotes.
std::string piece(std::string_view s, std::size_t i, std::size_t& used, bool backslash) {
  const auto c = static_cast<unsigned char>(s[i]);
  used = 1;
  switch (c) {
    case '\n': return "\\n";
    case '\t': return "\\t";
    case '\r': return "\\r";
    case '\\': return backslash ? "\\\\" : "\\";
    default: break;
  }
  if (c >= 0x20 && c < 0x7F) return std::string(1, static_cast<char>(c));
  if (c >= 0x80)
    if (const std::size_t n = utf8_length(s, i)) {
      used = n;
      return std::string(s.substr(i, n));
    }
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", c);
  return buf;
}

/// s escaped; if longer than `max`, its start (`head` characters at most) and end (the rest),
/// joined by "..."; `cut` tells which.
std::string escape(std::string_view s, std::size_t max, std::size_t head, bool backslash, bool& cut) {
  std::string out;
  cut = false;
  std::size_t i = 0, used = 0;
  for (; i < s.size(); i += used) {
    std::string p = piece(s, i, used, backslash);
    if (out.size() + p.size() > max) {
      cut = true;
      break;
    }
    out += p;
  }
  if (!cut) return out;
  // start: whole characters up to `head`
  std::string start;
  std::size_t end_of_start = 0;
  for (std::size_t k = 0; k < s.size(); k += used) {
    std::string p = piece(s, k, used, backslash);
    if (start.size() + p.size() > head) break;
    start += p;
    end_of_start = k + used;
  }
  // end: the last characters within the remaining budget, scanned forward from a window
  // before the end (continuation bytes at its start are skipped, not split)
  const std::size_t budget = max > head ? max - head : 0;
  std::size_t k = s.size() > budget ? s.size() - budget : 0;
  if (k < end_of_start) k = end_of_start;
  for (int skip = 0; skip < 3 && k < s.size() && (static_cast<unsigned char>(s[k]) & 0xC0u) == 0x80u; ++skip) ++k;
  std::vector<std::string> tail;
  for (; k < s.size(); k += used) tail.push_back(piece(s, k, used, backslash));
  std::string end;
  for (std::size_t n = tail.size(); n-- > 0 && end.size() + tail[n].size() <= budget;) end.insert(0, tail[n]);
  return start + "..." + end;
}

}  // namespace

std::string quote(std::string_view s) {
  bool cut = false;
  const std::string text = escape(s, kQuoteMax, 120, true, cut);
  return "'" + text + "'" + (cut ? " (" + std::to_string(s.size()) + " bytes)" : std::string());
}

std::string printable(std::string_view s, std::size_t max) {
  bool cut = false;
  const std::string text = escape(s, max, max, false, cut);
  return cut ? text + " (" + std::to_string(s.size()) + " bytes)" : text;
}

std::string num(double x) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

}  // namespace lie
