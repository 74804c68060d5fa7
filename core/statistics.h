// A registry of named figures: a component records what it measured under a
// dotted key, and the report reads every figure from here, so a new figure is
// added in one place, the component that knows it:
//
//   stats.add({"network.link_bytes", "link bytes", "bytes", "bytes carried by every link", Merge::sum}, bytes);
//
// The report writes each figure into its JSON at the key's path
// ("network.link_bytes" -> {"network": {"link_bytes": ...}}), from which the
// HDF5 /summary attributes follow, and the text report prints every figure
// with a label as one row. Each rank records its own figures; combine()
// merges every rank's by each figure's rule (pure, so any rank count gives
// the same merged figures where the rule and values allow), and
// encode()/decode() carry a registry between ranks as bytes.
//
// Recording is for the end of a run, not the hot path: a component keeps its
// own counters and publishes them once.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace pf::core {

class Statistics {
 public:
  enum class Merge : std::uint8_t { sum, max, min };
  using Value = std::variant<std::int64_t, double>;  // integers stay integers in the JSON

  struct Figure {
    std::string key;      // dotted path in the report JSON: "simulation.remote_events"
    std::string label;    // text report row label (empty: JSON only)
    std::string unit;     // "events", "bytes", "s", "" for a plain count
    std::string meaning;  // one line, for the docs and readers of the JSON
    Merge merge = Merge::sum;
    Value value = std::int64_t{0};
  };

  // Records a figure, or folds `value` into the one already under this key by
  // its rule (a component may publish per GPU or per link). Throws
  // pf::SimulationError when the key exists with another rule or value type,
  // or is not a dotted lower_snake_case path.
  void add(Figure figure);
  void add(Figure figure, std::int64_t value);
  void add(Figure figure, double value);

  const std::vector<Figure>& figures() const { return figures_; }
  const Figure* find(const std::string& key) const;
  bool empty() const { return figures_.empty(); }

  // Every rank's registry as one, figures in first-seen order (rank order):
  // a figure some ranks lack merges over the ranks that have it.
  static Statistics combine(std::span<const Statistics> per_rank);

  std::string encode() const;
  // pf::SimulationError on a malformed blob.
  static Statistics decode(const std::string& bytes);

 private:
  std::vector<Figure> figures_;
};

}  // namespace pf::core
