#include "core/statistics.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace pf::core {
namespace {

// a.b_c: lower_snake_case segments joined by dots (the report's JSON style).
bool valid_key(const std::string& key) {
  if (key.empty() || key.front() == '.' || key.back() == '.') return false;
  char prev = '.';
  for (char c : key) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!word && c != '.') return false;
    if (c == '.' && prev == '.') return false;
    prev = c;
  }
  return true;
}

template <class T>
T fold(Statistics::Merge rule, T a, T b) {
  switch (rule) {
    case Statistics::Merge::sum: return a + b;
    case Statistics::Merge::max: return std::max(a, b);
    case Statistics::Merge::min: return std::min(a, b);
  }
  return a;
}

void fold_into(Statistics::Figure& into, const Statistics::Figure& other) {
  if (other.merge != into.merge || other.value.index() != into.value.index())
    throw SimulationError("statistics: figure '" + into.key + "' recorded with two different rules or types");
  if (into.value.index() == 0)
    into.value = fold(into.merge, std::get<0>(into.value), std::get<0>(other.value));
  else
    into.value = fold(into.merge, std::get<1>(into.value), std::get<1>(other.value));
}

// Bytes: per figure, four length-prefixed strings, the rule, the type, the value.
void put_string(std::string& out, const std::string& s) {
  const std::uint32_t n = static_cast<std::uint32_t>(s.size());
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out += s;
}

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  bool done() const { return at_ == bytes_.size(); }
  template <class T>
  T raw() {
    T v{};
    need(sizeof v);
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string string() {
    const auto n = raw<std::uint32_t>();
    need(n);
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }

 private:
  void need(std::size_t n) const {
    if (bytes_.size() - at_ < n) throw SimulationError("statistics: a rank's figures are truncated");
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace

void Statistics::add(Figure figure) {
  if (!valid_key(figure.key))
    throw SimulationError("statistics: '" + figure.key + "' is not a dotted lower_snake_case key");
  for (Figure& f : figures_)
    if (f.key == figure.key) return fold_into(f, figure);
  figures_.push_back(std::move(figure));
}

void Statistics::add(Figure figure, std::int64_t value) {
  figure.value = value;
  add(std::move(figure));
}

void Statistics::add(Figure figure, double value) {
  figure.value = value;
  add(std::move(figure));
}

const Statistics::Figure* Statistics::find(const std::string& key) const {
  for (const Figure& f : figures_)
    if (f.key == key) return &f;
  return nullptr;
}

Statistics Statistics::combine(std::span<const Statistics> per_rank) {
  Statistics out;
  for (const Statistics& rank : per_rank)
    for (const Figure& f : rank.figures_) out.add(f);
  return out;
}

std::string Statistics::encode() const {
  std::string out;
  for (const Figure& f : figures_) {
    put_string(out, f.key);
    put_string(out, f.label);
    put_string(out, f.unit);
    put_string(out, f.meaning);
    out += static_cast<char>(f.merge);
    out += static_cast<char>(f.value.index());
    if (f.value.index() == 0) {
      const std::int64_t v = std::get<0>(f.value);
      out.append(reinterpret_cast<const char*>(&v), sizeof v);
    } else {
      const double v = std::get<1>(f.value);
      out.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
  }
  return out;
}

Statistics Statistics::decode(const std::string& bytes) {
  Statistics out;
  Reader in(bytes);
  while (!in.done()) {
    Figure f;
    f.key = in.string();
    f.label = in.string();
    f.unit = in.string();
    f.meaning = in.string();
    const auto merge = in.raw<std::uint8_t>();
    const auto type = in.raw<std::uint8_t>();
    if (merge > static_cast<std::uint8_t>(Merge::min) || type > 1)
      throw SimulationError("statistics: a rank's figures are malformed");
    f.merge = static_cast<Merge>(merge);
    if (type == 0) f.value = in.raw<std::int64_t>();
    else f.value = in.raw<double>();
    out.add(std::move(f));
  }
  return out;
}

}  // namespace pf::core
