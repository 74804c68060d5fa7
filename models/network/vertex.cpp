#include "models/network/vertex.h"

namespace pf::models::network {

const char* to_string(VertexKind kind) {
  switch (kind) {
    case VertexKind::gpu: return "gpu";
    case VertexKind::nvswitch: return "nvswitch";
    case VertexKind::nic: return "nic";
    case VertexKind::leaf: return "leaf";
    case VertexKind::spine: return "spine";
    case VertexKind::core: return "core";
  }
  return "?";
}

bool is_switch(VertexKind kind) {
  return kind == VertexKind::leaf || kind == VertexKind::spine || kind == VertexKind::core;
}

}  // namespace pf::models::network
