// topogen's merlin topology topogen.table_topo: see table_topo.h and docs/sst.md.
//
// Routing: the packet's destination endpoint gives its router (endpoint_router); at any
// other router the packet leaves on next_port[destination router], the port of the first
// hop of topogen's route from this router to that router (topogen_sst.py builds the tables
// from the bundle and refuses routings whose next hop depends on the source).  At the
// destination router it leaves on its endpoint's port.
//
// VCs: a packet enters on VC 0 of its virtual network.  On every router-router hop it takes
// the VC of the output port with the most credits in hr_router's output buffer (the array
// hr_router hands over with setOutputBufferCreditArray), ties to the lowest VC: the
// reference simulator's "credits" VC rule.  hr_router routes a packet when it becomes the
// head of its input VC, so the credits are those of that moment.  With vc_credits =
// downstream it takes the VC with the fewest flits in hr_router's output queue lengths
// instead, which count the next router's input buffer too when the router tracks them
// remotely (oql_track_remote): the most free flits up to the next router.  Ejection keeps
// the VC (hr_router's host ports count credits per virtual network).
//
// Untimed (init/complete) data takes the same tables; a broadcast follows a spanning tree
// (tree_ports) and reaches every endpoint but its source.
#include <sst/core/sst_config.h>
#include "table_topo.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <unistd.h>

using namespace SST;
using namespace SST::Merlin;
using namespace Topogen;

namespace {
// endpoint_router arrays by their parameter text: every router of a process that gets the
// same text (a shared parameter set) shares one parsed array
std::mutex endpoint_mutex;
std::map<std::string, std::shared_ptr<const std::vector<int>>> endpoint_arrays;

std::shared_ptr<const std::vector<int>> endpoint_array(Params& params)
{
    std::string text = params.find<std::string>("endpoint_router", "");
    std::lock_guard<std::mutex> lock(endpoint_mutex);
    auto it = endpoint_arrays.find(text);
    if (it != endpoint_arrays.end()) return it->second;
    auto values = std::make_shared<std::vector<int>>();
    params.find_array<int>("endpoint_router", *values);
    endpoint_arrays[text] = values;
    return values;
}
}  // namespace

int TableTopo::next_port_of(int r) const
{
    if (width == 1) {
        unsigned v = next_port[r];
        return v == 0xFFu ? -1 : (int)v;
    }
    unsigned v = (unsigned)next_port[2 * (size_t)r] | ((unsigned)next_port[2 * (size_t)r + 1] << 8);
    return v == 0xFFFFu ? -1 : (int)v;
}

void TableTopo::read_row(const std::string& file, size_t offset, int w, int routers)
{
    if (w != 1 && w != 2)
        output.fatal(CALL_INFO, -1, "topogen.table_topo: next_port_width must be 1 or 2, got %d\n", w);
    if (routers < 1)
        output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d: next_port_file needs num_routers >= 1\n",
                     router_id);
    width = w;
    num_routers = routers;
    size_t bytes = (size_t)routers * w;
    next_port.resize(bytes);
    int fd = open(file.c_str(), O_RDONLY);
    if (fd < 0)
        output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d cannot open %s: %s\n", router_id, file.c_str(),
                     strerror(errno));
    size_t done = 0;
    off_t at = (off_t)(offset + (size_t)router_id * bytes);
    while (done < bytes) {
        ssize_t got = pread(fd, next_port.data() + done, bytes - done, at + (off_t)done);
        if (got <= 0) {
            close(fd);
            output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d: %s ends before its row (%zu of %zu bytes "
                         "from byte %lld)\n", router_id, file.c_str(), done, bytes, (long long)at);
        }
        done += (size_t)got;
    }
    close(fd);
}

TableTopo::TableTopo(ComponentId_t cid, Params& params, int num_ports_in, int rtr_id, int num_vns_in) :
    Topology(cid), router_id(rtr_id), num_ports(num_ports_in), num_vns(num_vns_in)
{
    num_R2R_ports = params.find<int>("num_R2R_ports", 0);
    num_R2N_ports = params.find<int>("num_R2N_ports", 0);
    num_vcs = params.find<int>("num_vcs", 4);
    std::string rule = params.find<std::string>("vc_credits", "output");
    if (rule != "downstream" && rule != "output")
        output.fatal(CALL_INFO, -1, "topogen.table_topo: vc_credits must be downstream or output, got %s\n",
                     rule.c_str());
    downstream = rule == "downstream";
    if (num_vcs < 1) output.fatal(CALL_INFO, -1, "topogen.table_topo: num_vcs must be >= 1, got %d\n", num_vcs);
    if (num_vns < 1) output.fatal(CALL_INFO, -1, "topogen.table_topo: num_vns must be >= 1, got %d\n", num_vns);
    total_vcs = num_vcs * num_vns;
    if (num_R2R_ports < 0 || num_R2N_ports < 0 || num_R2R_ports + num_R2N_ports != num_ports)
        output.fatal(CALL_INFO, -1,
                     "topogen.table_topo: router %d has %d ports, not num_R2R_ports %d + num_R2N_ports %d\n",
                     router_id, num_ports, num_R2R_ports, num_R2N_ports);
    std::string row_file = params.find<std::string>("next_port_file", "");
    if (!row_file.empty()) {
        read_row(row_file, params.find<size_t>("next_port_offset", 0), params.find<int>("next_port_width", 1),
                 params.find<int>("num_routers", 0));
    } else {
        std::vector<int> ports;
        params.find_array<int>("next_port", ports);
        width = 2;
        num_routers = (int)ports.size();
        next_port.resize(2 * ports.size());
        for (size_t d = 0; d < ports.size(); ++d) {
            unsigned v = ports[d] < 0 || ports[d] >= 0xFFFF ? 0xFFFFu : (unsigned)ports[d];
            next_port[2 * d] = (unsigned char)(v & 0xFF);
            next_port[2 * d + 1] = (unsigned char)(v >> 8);
        }
    }
    endpoint_router = endpoint_array(params);
    params.find_array<int>("tree_ports", tree_ports);
    params.find_map<int, int>("endpoint_to_port_map", endpoint_port);
    if (num_routers == 0 || endpoint_router->empty())
        output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d needs next_port (or next_port_file) and "
                     "endpoint_router\n", router_id);
    if (router_id < 0 || router_id >= num_routers || next_port_of(router_id) != -1)
        output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d: next_port must have -1 at its own id\n",
                     router_id);
    for (int d = 0; d < num_routers; ++d) {
        int p = next_port_of(d);
        if (d != router_id && (p < 0 || p >= num_R2R_ports))
            output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d: next_port[%d] = %d is not a router port "
                         "0..%d\n", router_id, d, p, num_R2R_ports - 1);
    }
    const std::vector<int>& owner = *endpoint_router;
    for (size_t e = 0; e < owner.size(); ++e) {
        int r = owner[e];
        if (r < 0 || r >= num_routers)
            output.fatal(CALL_INFO, -1, "topogen.table_topo: endpoint %zu is on router %d, outside 0..%d\n", e, r,
                         num_routers - 1);
        if (r == router_id && !endpoint_port.count((int)e))
            output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d has no port for its endpoint %zu\n",
                         router_id, e);
    }
    for (const auto& kv : endpoint_port) {
        if (kv.second < num_R2R_ports || kv.second >= num_ports)
            output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d: endpoint %d on port %d, not an endpoint "
                         "port %d..%d\n", router_id, kv.first, kv.second, num_R2R_ports, num_ports - 1);
        port_endpoint[kv.second] = kv.first;
    }
}

int TableTopo::out_port(int dest) const
{
    const std::vector<int>& owner = *endpoint_router;
    if (dest < 0 || dest >= (int)owner.size())
        output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d: destination endpoint %d outside 0..%zu\n",
                     router_id, dest, owner.size() - 1);
    int r = owner[dest];
    if (r == router_id) return endpoint_port.at(dest);
    return next_port_of(r);
}

internal_router_event* TableTopo::process_input(RtrEvent* ev)
{
    internal_router_event* ire = new internal_router_event(ev);
    int vn = ire->getVN();
    if (vn < 0 || vn >= num_vns)
        output.fatal(CALL_INFO, -1, "topogen.table_topo: packet on virtual network %d, router has %d\n", vn,
                     num_vns);
    ire->setVC(vn * num_vcs);
    return ire;
}

void TableTopo::route_packet(int port, int vc, internal_router_event* ev)
{
    int p = out_port(ev->getDest());
    ev->setNextPort(p);
    if (p >= num_R2R_ports) return;  // ejection: keeps its VC
    int lo = ev->getVN() * num_vcs;
    int best = lo;
    if (downstream && queued != nullptr) {  // fewest flits queued = most credits downstream
        int const* q = queued + (size_t)p * total_vcs;
        for (int x = lo + 1; x < lo + num_vcs; ++x)
            if (q[x] < q[best]) best = x;
    } else if (!downstream && credits != nullptr) {
        int const* c = credits + (size_t)p * total_vcs;
        for (int x = lo + 1; x < lo + num_vcs; ++x)
            if (c[x] > c[best]) best = x;
    }
    ev->setVC(best);
}

std::pair<int, int> TableTopo::getDeliveryPortForEndpointID(int ep_id)
{
    if (ep_id < 0 || ep_id >= (int)endpoint_router->size()) return std::make_pair(-1, -1);
    int r = (*endpoint_router)[ep_id];
    auto it = endpoint_port.find(ep_id);
    return std::make_pair(r, r == router_id && it != endpoint_port.end() ? it->second : -1);
}

void TableTopo::routeUntimedData(int port, internal_router_event* ev, std::vector<int>& outPorts)
{
    if (ev->getDest() == SST::Merlin::UNTIMED_BROADCAST_ADDR) {
        for (int p : tree_ports)
            if (p != port) outPorts.push_back(p);
        for (const auto& kv : port_endpoint)
            if (kv.first != port) outPorts.push_back(kv.first);
        return;
    }
    int p = out_port(ev->getDest());
    ev->setNextPort(p);
    outPorts.push_back(p);
}

internal_router_event* TableTopo::process_UntimedData_input(RtrEvent* ev)
{
    internal_router_event* ire = new internal_router_event(ev);
    ire->setVC(0);
    return ire;
}

Topology::PortState TableTopo::getPortState(int port) const
{
    if (port < num_R2R_ports) return R2R;
    if (port < num_R2R_ports + num_R2N_ports) return R2N;
    return UNCONNECTED;
}

int TableTopo::getEndpointID(int port)
{
    auto it = port_endpoint.find(port);
    return it == port_endpoint.end() ? -1 : it->second;
}

void TableTopo::getVCsPerVN(std::vector<int>& vcs_per_vn)
{
    for (size_t i = 0; i < vcs_per_vn.size(); ++i) vcs_per_vn[i] = num_vcs;
}

void TableTopo::setOutputBufferCreditArray(int const* array, int vcs)
{
    if (vcs != total_vcs)
        output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d: hr_router has %d VCs, the topology %d\n",
                     router_id, vcs, total_vcs);
    credits = array;
}

void TableTopo::setOutputQueueLengthsArray(int const* array, int vcs)
{
    if (vcs != total_vcs)
        output.fatal(CALL_INFO, -1, "topogen.table_topo: router %d: hr_router has %d VCs, the topology %d\n",
                     router_id, vcs, total_vcs);
    queued = array;
}
