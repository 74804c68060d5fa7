// The configuration tree: file/line/key-path stamping, YAML errors, canonical output.
#include <gtest/gtest.h>

#include "io/config/config_node.h"
#include "io/config/yaml_reader.h"
#include "io/config/yaml_writer.h"
#include "temp_dir.h"

namespace pf::config {
namespace {

using testing::config_error;
using testing::TempDir;

TEST(ConfigTree, NodesCarryFileLineAndKeyPath) {
  const ConfigNode root = read_yaml_text("name: x\nnode:\n  gpus: 8\n  list: [1, 2]\n", "hw.yaml", "hardware");
  ASSERT_TRUE(root.is_map());
  const ConfigNode* gpus = root.find("node")->find("gpus");
  ASSERT_NE(gpus, nullptr);
  EXPECT_EQ(gpus->text(), "8");
  EXPECT_EQ(gpus->source().file, "hw.yaml");
  EXPECT_EQ(gpus->source().line, 3);
  EXPECT_EQ(gpus->path(), "hardware.node.gpus");
  EXPECT_EQ(gpus->where(), "hw.yaml:3: hardware.node.gpus");
  const ConfigNode& second = root.find("node")->find("list")->items().at(1);
  EXPECT_EQ(second.path(), "hardware.node.list[1]");
  EXPECT_EQ(second.source().line, 4);
  // A mapping value is located at its key's line, where a user looks for it.
  EXPECT_EQ(root.find("node")->source().line, 2);
}

TEST(ConfigTree, QuotedScalarsAreNotPlain) {
  const ConfigNode root = read_yaml_text("a: 4\nb: \"4\"\nc: '4'\nd:\n", "f.yaml");
  EXPECT_TRUE(root.find("a")->plain());
  EXPECT_FALSE(root.find("b")->plain());
  EXPECT_FALSE(root.find("c")->plain());
  EXPECT_TRUE(root.find("d")->is_null());
}

TEST(ConfigTree, MapsKeepFileOrder) {
  const ConfigNode root = read_yaml_text("z: 1\na: 2\nm: 3\n", "f.yaml");
  EXPECT_EQ(root.keys(), (std::vector<std::string>{"z", "a", "m"}));
}

TEST(ConfigTree, DuplicateKeyIsAnErrorWithItsLine) {
  const std::string message = config_error([] { read_yaml_text("tp: 1\npp: 2\ntp: 4\n", "exp.yaml"); });
  EXPECT_EQ(message, "exp.yaml:3: tp: duplicate key 'tp'");
}

TEST(ConfigTree, SyntaxErrorNamesFileAndLine) {
  const std::string message = config_error([] { read_yaml_text("a: 1\nb: [1, 2\nc: 3\n", "bad.yaml"); });
  EXPECT_TRUE(message.starts_with("bad.yaml:")) << message;
  EXPECT_NE(message.find("invalid YAML"), std::string::npos) << message;
}

TEST(ConfigTree, MissingFileIsAConfigError) {
  const std::string message = config_error([] { read_yaml_file("/nonexistent/dir/exp.yaml"); });
  EXPECT_EQ(message.rfind("/nonexistent/dir/exp.yaml: cannot open file", 0), 0u) << message;
}

TEST(ConfigTree, ReadsFilesWithTheirName) {
  TempDir dir;
  const std::string file = dir.write("m.yaml", "# comment\nlayers: 2\n");
  const ConfigNode root = read_yaml_file(file, "model");
  EXPECT_EQ(root.find("layers")->where(), file + ":2: model.layers");
}

TEST(ConfigTree, OverrideNodesAreNamedByTheOverride) {
  const SourceLocation source{"--set parallelism.layers_per_stage=[3, 5]", 0, "parallelism.layers_per_stage"};
  const ConfigNode value = read_yaml_value("[3, 5]", source, "parallelism.layers_per_stage");
  ASSERT_TRUE(value.is_sequence());
  EXPECT_EQ(value.where(), "--set parallelism.layers_per_stage=[3, 5]");
  EXPECT_EQ(value.items()[1].where(), "--set parallelism.layers_per_stage=[3, 5]: parallelism.layers_per_stage[1]");
}

TEST(ConfigTree, EmitSortsKeysSoLayoutDoesNotMatter) {
  const ConfigNode a = read_yaml_text("b: 1\na:\n  y: [1, 2]\n  x: \"s\"\n", "a.yaml");
  const ConfigNode b = read_yaml_text("a: {x: \"s\", y: [1,2]}\n\n# moved\nb: 1\n", "b.yaml");
  EXPECT_EQ(emit_yaml(a), emit_yaml(b));
  EXPECT_EQ(emit_yaml(a), "a:\n  x: \"s\"\n  y: [1, 2]\nb: 1\n");
}

TEST(ConfigTree, EmitRoundTrips) {
  const ConfigNode a = read_yaml_text("k: {n: 3, s: \"007\", l: [a, b], e: ~}\n", "a.yaml");
  const ConfigNode again = read_yaml_text(emit_yaml(a), "again.yaml");
  EXPECT_EQ(emit_yaml(again), emit_yaml(a));
  EXPECT_FALSE(again.find("k")->find("s")->plain());   // still a string, not the number 7
  EXPECT_TRUE(again.find("k")->find("e")->is_null());
}

TEST(ConfigTree, NearestNodeFallsBackToTheDeepestExistingKey) {
  const ConfigNode root = read_yaml_text("parallelism:\n  tp: 2\n", "e.yaml");
  EXPECT_EQ(nearest_node(root, "parallelism.tp").path(), "parallelism.tp");
  EXPECT_EQ(nearest_node(root, "parallelism.dp").path(), "parallelism");
  EXPECT_EQ(nearest_node(root, "training.seq_length").path(), "");
}

}  // namespace
}  // namespace pf::config
