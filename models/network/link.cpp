#include "models/network/link.h"

namespace pf::models::network {

const char* to_string(LinkClass cls) {
  switch (cls) {
    case LinkClass::gpu_to_nvswitch: return "gpu_to_nvswitch";
    case LinkClass::nvswitch_to_gpu: return "nvswitch_to_gpu";
    case LinkClass::gpu_to_nic: return "gpu_to_nic";
    case LinkClass::nic_to_gpu: return "nic_to_gpu";
    case LinkClass::nic_to_leaf: return "nic_to_leaf";
    case LinkClass::leaf_to_nic: return "leaf_to_nic";
    case LinkClass::leaf_to_spine: return "leaf_to_spine";
    case LinkClass::spine_to_leaf: return "spine_to_leaf";
    case LinkClass::spine_to_core: return "spine_to_core";
    case LinkClass::core_to_spine: return "core_to_spine";
  }
  return "?";
}

}  // namespace pf::models::network
