#include "io/simai/experiment_workload.h"

#include <memory>

#include "io/simai/simai_reader.h"

namespace pf::io {

models::training::TrainingWorkload experiment_workload(const models::ExperimentSpec& e) {
  if (e.simai_workload.empty()) return models::training::built_in_workload(e);
  auto file = std::make_shared<const models::workload::SimaiWorkload>(read_simai_file(e.simai_workload));
  return models::training::simai_workload(std::move(file), e.gpu_count());
}

}  // namespace pf::io
