/* SPDX-License-Identifier: BSD-3-Clause */
// A SimGrid 3.32 platform plugin for fabricbench's simulated tests (tests/sim/README.md): a
// 2-level fat tree, faults injected by slowing links, and the files a run needs.
//
// Environment:
//   FT_LEAVES, FT_HOSTS    leaf switches, hosts per leaf (hosts are node-0 .. node-N-1)
//   FT_SPINES              spine switches (default FT_HOSTS)
//   FT_BW, FT_LAT          a host link's bandwidth (bytes/s) and a link's latency (s)
//   FT_UPBW                a leaf-spine link's bandwidth (default FT_BW x FT_HOSTS: no two
//                          flows of a round slow each other down whatever the routing)
//   FT_SLOW="SEL=BW,..."   set the bandwidth of links: SEL is node-5 (the host's link, both
//                          ways), node-5:up or node-5:down (towards or from the switch),
//                          leaf2-spine3 (that leaf-spine link, both ways), leaf2-spine3:up or
//                          :down (leaf to spine, spine to leaf), or else any substring of
//                          SimGrid's link names (link_from_A_B_K_UP/DOWN)
//   FT_DELAY="SEL=S,..."   set the latency (s) of links, selected as for FT_SLOW
//   FT_SWITCHES=FILE       write "node-i leafJ" lines (fabricbench run --switches FILE)
//   FT_DUMP=FILE           write every link ("L simgrid-name symbolic-name bw lat") and, with
//                          FT_DUMP_ROUTES=1, every host pair's route ("R src dst links...")
// Leaves and spines are numbered in the order SimGrid builds them: leafJ holds node-(J*H) ..
// node-(J*H+H-1); spineK is the K-th spine by SimGrid's id.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {
double env_num(const char* name, double def)
{
  const char* v = std::getenv(name);
  return v && *v ? std::atof(v) : def;
}

// "link_from_A_B_K_UP" -> {A, B, K, up}; false for another name
bool parse_link(const std::string& name, long ids[3], bool* up)
{
  const std::string pre = "link_from_";
  if (name.compare(0, pre.size(), pre) != 0)
    return false;
  std::stringstream ss(name.substr(pre.size()));
  std::string part;
  std::vector<std::string> parts;
  while (std::getline(ss, part, '_'))
    parts.push_back(part);
  if (parts.size() != 4)
    return false;
  for (int i = 0; i < 3; i++)
    ids[i] = std::atol(parts[i].c_str());
  *up = parts[3] == "UP";
  return true;
}

struct Names {
  long nhosts = 0;
  std::map<long, int> leaf, spine; // SimGrid id -> index
  std::map<std::string, std::string> symbolic; // SimGrid link name -> symbolic name
};

// Host links are link_from_HOST_LEAF_HOST; leaf-spine links link_from_LEAF_SPINE_K.
Names name_links(const std::vector<sg4::Link*>& links, long nhosts, long per_leaf)
{
  Names n;
  n.nhosts = nhosts;
  std::map<long, long> first_host; // leaf id -> lowest host on it
  std::vector<long> spines;
  for (auto* l : links) {
    long id[3];
    bool up;
    if (!parse_link(l->get_name(), id, &up))
      continue;
    if (id[0] < nhosts) {
      if (!first_host.count(id[1]) || id[0] < first_host[id[1]])
        first_host[id[1]] = id[0];
    } else {
      spines.push_back(id[1]);
    }
  }
  for (auto& [leaf, host] : first_host)
    n.leaf[leaf] = (int)(host / per_leaf);
  std::sort(spines.begin(), spines.end());
  spines.erase(std::unique(spines.begin(), spines.end()), spines.end());
  for (size_t i = 0; i < spines.size(); i++)
    n.spine[spines[i]] = (int)i;
  for (auto* l : links) {
    long id[3];
    bool up;
    if (!parse_link(l->get_name(), id, &up))
      continue;
    std::string sym = id[0] < nhosts ? "node-" + std::to_string(id[0])
                                     : "leaf" + std::to_string(n.leaf[id[0]]) + "-spine" +
                                           std::to_string(n.spine[id[1]]);
    n.symbolic[l->get_name()] = sym + (up ? ":up" : ":down");
  }
  return n;
}

bool selected(const std::string& sel, const std::string& name, const Names& n)
{
  auto it = n.symbolic.find(name);
  if (it != n.symbolic.end()) {
    const std::string& sym = it->second; // "node-5:up"
    if (sel == sym || sel == sym.substr(0, sym.find(':')))
      return true;
    if (sel.find("node-") == 0 || sel.find("leaf") == 0)
      return false; // a symbolic selector matches whole names only
  }
  return name.find(sel) != std::string::npos;
}
} // namespace

extern "C" void load_platform(const sg4::Engine& e);
void load_platform(const sg4::Engine& e)
{
  auto leaves = (unsigned)env_num("FT_LEAVES", 8), hosts = (unsigned)env_num("FT_HOSTS", 8);
  auto spines = (unsigned)env_num("FT_SPINES", hosts);
  double bw = env_num("FT_BW", 12.5e9), lat = env_num("FT_LAT", 0.17e-6);
  double upbw = env_num("FT_UPBW", bw * hosts);

  auto* root = sg4::create_full_zone("world");
  sg4::FatTreeParams p(2, {hosts, leaves}, {1, spines}, {1, 1});
  auto cb = sg4::ClusterCallbacks(
      [](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id)
          -> std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> {
        auto* h = zone->create_host("node-" + std::to_string(id), 1e9);
        return {h->get_netpoint(), nullptr};
      });
  auto* ft = sg4::create_fatTree_zone("ft", root, p, cb, bw, lat,
                                      sg4::Link::SharingPolicy::SPLITDUPLEX);
  ft->seal();
  root->seal();

  auto links = e.get_all_links();
  Names n = name_links(links, (long)leaves * hosts, hosts);
  for (auto* l : links)
    if (n.symbolic.count(l->get_name()) && n.symbolic[l->get_name()].find("leaf") == 0)
      l->set_bandwidth(upbw);
  for (const char* var : {"FT_SLOW", "FT_DELAY"}) {
    const char* s = std::getenv(var);
    std::stringstream ss(s ? s : "");
    std::string item;
    while (std::getline(ss, item, ',')) {
      auto eq = item.find('=');
      if (eq == std::string::npos)
        continue;
      std::string sel = item.substr(0, eq);
      double v = std::atof(item.c_str() + eq + 1);
      int count = 0;
      for (auto* l : links)
        if (selected(sel, l->get_name(), n)) {
          if (var[3] == 'S')
            l->set_bandwidth(v);
          else
            l->set_latency(v);
          count++;
          std::fprintf(stderr, "%s: %s (%s) -> %.4g %s\n", var, l->get_cname(),
                       n.symbolic.count(l->get_name()) ? n.symbolic[l->get_name()].c_str() : "-",
                       v, var[3] == 'S' ? "B/s" : "s");
        }
      if (count == 0)
        std::fprintf(stderr, "%s: no link matches '%s'\n", var, sel.c_str());
    }
  }
  if (const char* path = std::getenv("FT_SWITCHES")) {
    FILE* f = std::fopen(path, "w");
    if (f) {
      std::fprintf(f, "# node switch: the simulated fat tree (tests/sim/fattree.cpp)\n");
      for (unsigned i = 0; i < leaves * hosts; i++)
        std::fprintf(f, "node-%u leaf%u\n", i, i / hosts);
      std::fclose(f);
    }
  }
  if (const char* path = std::getenv("FT_DUMP")) {
    FILE* f = std::fopen(path, "w");
    if (!f)
      return;
    for (auto* l : links)
      std::fprintf(f, "L %s %s %.6g %.6g\n", l->get_cname(),
                   n.symbolic.count(l->get_name()) ? n.symbolic[l->get_name()].c_str() : "-",
                   l->get_bandwidth(), l->get_latency());
    if (std::getenv("FT_DUMP_ROUTES")) {
      auto all = e.get_all_hosts();
      for (auto* a : all)
        for (auto* b : all) {
          if (a == b)
            continue;
          std::vector<sg4::Link*> route;
          double l = 0;
          a->route_to(b, route, &l);
          std::fprintf(f, "R %s %s", a->get_cname(), b->get_cname());
          for (auto* k : route)
            std::fprintf(f, " %s", n.symbolic.count(k->get_name())
                                       ? n.symbolic[k->get_name()].c_str()
                                       : k->get_cname());
          std::fprintf(f, "\n");
        }
    }
    std::fclose(f);
  }
}
