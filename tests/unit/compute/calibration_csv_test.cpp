// The calibration CSV reader: what it accepts, and the one-line errors (file,
// line, column, expected, found) it gives for what it does not.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "core/error.h"
#include "gh200.h"
#include "models/compute/calibration_table.h"

namespace pf::models {
namespace {

namespace fs = std::filesystem;

class CalibrationCsv : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("pf_compute_csv_" + std::string(info->name()) + "_" +
                                        std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // The ConfigError message of reading `text`, or "" when it did not throw.
  std::string error_of(const std::string& name, const std::string& text) {
    const std::string path = write(name, text);
    try {
      (void)read_calibration_csv(path);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(CalibrationCsv, ReadsAGemmTableWithCommentsBlankLinesAndCrlf) {
  const auto path = write("gemm_bf16.csv",
                          "# measured on a test GPU\r\nM, N, K, t_measured_ms\r\n\r\n128,256,512,0.5\r\n"
                          "1024,1024,1024,1.25\r\n");
  const CalibrationTable t = read_calibration_csv(path);
  EXPECT_EQ(t.kind, KernelTableKind::gemm);
  EXPECT_EQ(t.dtype, Dtype::bf16);  // from the file name
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].op, gemm_op({128, 256, 512}, Dtype::bf16));
  EXPECT_DOUBLE_EQ(t.rows[1].seconds, 1.25e-3);
  EXPECT_EQ(t.rows[1].line, 5);
}

TEST_F(CalibrationCsv, ReadsAttentionAndRmsnormTablesAndSkipsUnmeasuredRows) {
  const auto attn = read_calibration_csv(
      write("attn.csv", "bs,seq,nh,nkv,hd,t_measured_ms\n1,1024,32,8,128,0.2\n1,2,2,4,64,-1\n"), Dtype::fp8);
  EXPECT_EQ(attn.kind, KernelTableKind::attention);
  EXPECT_EQ(attn.dtype, Dtype::fp8);  // no dtype in the name: the caller's default
  ASSERT_EQ(attn.rows.size(), 1u);
  EXPECT_EQ(attn.unmeasured_rows, 1);
  EXPECT_EQ(attn.rows[0].op, attention_op({1, 1024, 1024, 32, 8, 128, false}, Dtype::fp8));
  const auto norm = read_calibration_csv(write("rmsnorm.csv", "seq,dim,t_measured_ms\n2048,4096,0.07\n"));
  EXPECT_EQ(norm.kind, KernelTableKind::rmsnorm);
  EXPECT_EQ(norm.dtype, Dtype::fp16);
  EXPECT_EQ(norm.rows[0].op, norm_op({2048, 4096, NormKind::rmsnorm}, Dtype::fp16));
}

TEST_F(CalibrationCsv, UnknownHeaderNamesTheKnownOnes) {
  const std::string msg = error_of("bad.csv", "m,n,k,time\n1,2,3,4\n");
  EXPECT_NE(msg.find("bad.csv:1:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected a header row"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'M,N,K,t_measured_ms'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("found 'm,n,k,time'"), std::string::npos) << msg;
}

TEST_F(CalibrationCsv, WrongFieldCountNamesLineAndColumns) {
  const std::string msg = error_of("short.csv", "M,N,K,t_measured_ms\n1,2,3,0.1\n4,5,0.2\n");
  EXPECT_NE(msg.find("short.csv:3:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected 4 fields (M,N,K,t_measured_ms), found 3"), std::string::npos) << msg;
}

TEST_F(CalibrationCsv, MalformedNumbersNameFileLineColumnExpectedAndFound) {
  std::string msg = error_of("a.csv", "M,N,K,t_measured_ms\n1,2,abc,0.1\n");
  EXPECT_NE(msg.find("a.csv:2: column 3 'K': expected a positive integer, found 'abc'"), std::string::npos) << msg;
  msg = error_of("b.csv", "seq,dim,t_measured_ms\n-4,8,0.1\n");
  EXPECT_NE(msg.find("b.csv:2: column 1 'seq': expected a positive integer, found '-4'"), std::string::npos) << msg;
  msg = error_of("c.csv", "seq,dim,t_measured_ms\n4,8.5,0.1\n");
  EXPECT_NE(msg.find("column 2 'dim'"), std::string::npos) << msg;
  msg = error_of("d.csv", "seq,dim,t_measured_ms\n4,8,fast\n");
  EXPECT_NE(msg.find("d.csv:2: column 3 't_measured_ms': expected a number, found 'fast'"), std::string::npos) << msg;
  msg = error_of("e.csv", "seq,dim,t_measured_ms\n4,8,0\n");
  EXPECT_NE(msg.find("expected a positive time in ms (or -1: not measured), found '0'"), std::string::npos) << msg;
  msg = error_of("f.csv", "bs,seq,nh,nkv,hd,t_measured_ms\n1,8,6,4,64,0.1\n");
  EXPECT_NE(msg.find("f.csv:2: column 4 'nkv': expected a divisor of nh (6), found '4'"), std::string::npos) << msg;
}

TEST_F(CalibrationCsv, EmptyTablesAndMissingFilesAreErrors) {
  EXPECT_NE(error_of("empty.csv", "").find("empty file"), std::string::npos);
  EXPECT_NE(error_of("header.csv", "M,N,K,t_measured_ms\n").find("at least one measured row"), std::string::npos);
  EXPECT_NE(error_of("none.csv", "M,N,K,t_measured_ms\n1,1,1,-1\n").find("at least one measured row"),
            std::string::npos);
  EXPECT_THROW(read_calibration_csv((dir_ / "absent.csv").string()), ConfigError);
  EXPECT_THROW(load_calibration((dir_ / "absent").string()), ConfigError);
}

TEST_F(CalibrationCsv, LoadsEveryCsvOfADirectoryInNameOrder) {
  write("b_rmsnorm.csv", "seq,dim,t_measured_ms\n8,8,0.01\n");
  write("a_gemm_fp16.csv", "M,N,K,t_measured_ms\n8,8,8,0.01\n");
  write("notes.txt", "not a table");
  const auto tables = load_calibration(dir_.string());
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].kind, KernelTableKind::gemm);
  EXPECT_EQ(tables[1].kind, KernelTableKind::rmsnorm);
  fs::remove(dir_ / "a_gemm_fp16.csv");
  fs::remove(dir_ / "b_rmsnorm.csv");
  EXPECT_THROW(load_calibration(dir_.string()), ConfigError);
}

TEST(CalibrationCsvGh200, ReadsTheSharedTables) {
  const auto gemm = test::gh200_table("gemm_fp16.csv");
  EXPECT_EQ(gemm.kind, KernelTableKind::gemm);
  EXPECT_EQ(gemm.dtype, Dtype::fp16);
  EXPECT_EQ(gemm.rows.size(), 43853u);
  const auto attn = test::gh200_table("attention_fp16.csv");
  EXPECT_EQ(attn.rows.size() + static_cast<std::size_t>(attn.unmeasured_rows), 13098u);
  EXPECT_EQ(attn.unmeasured_rows, 1404);  // the nkv > nh shapes upstream could not run
  EXPECT_EQ(test::gh200_table("rmsnorm.csv").rows.size(), 65536u);
}

}  // namespace
}  // namespace pf::models
