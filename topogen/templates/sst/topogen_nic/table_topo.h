// topogen's merlin topology topogen.table_topo: routes by destination with a per-router
// next-hop table and lets a packet take any of num_vcs VCs on every router-router hop (the
// one with the most credits, ties to the lowest), as BookSim's and topogen's reference
// simulator's routers do; merlin.anytopo fixes the VC of a packet to its hop number.
// topogen's own code (MIT, like topogen), written against merlin's Topology interface
// (sst/elements/merlin/router.h); see docs/sst.md, "SST's VCs: anytopo or
// topogen.table_topo".
#ifndef TOPOGEN_TABLE_TOPO_H
#define TOPOGEN_TABLE_TOPO_H

#include <sst/core/params.h>
#include <sst/elements/merlin/router.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace Topogen {

class TableTopo : public SST::Merlin::Topology {
public:
    SST_ELI_REGISTER_SUBCOMPONENT(TableTopo, "topogen", "table_topo", SST_ELI_ELEMENT_VERSION(1, 0, 0),
        "Next-hop table routing by destination router; any of num_vcs VCs per hop, the one with most credits "
        "(topogen)",
        SST::Merlin::Topology)

    SST_ELI_DOCUMENT_PARAMS(
        {"num_R2R_ports", "Router-router ports (ports 0..num_R2R_ports-1; endpoint ports follow)", "0"},
        {"num_R2N_ports", "Endpoint ports of this router", "0"},
        {"num_vcs", "VCs per virtual network; a packet may take any of them on a router-router hop", "4"},
        {"vc_credits", "Which credits pick the VC: output (hr_router's output-buffer credits) or downstream (free "
                       "flits in the output buffer and the next router's input buffer: needs hr_router's "
                       "oql_track_remote = true)", "output"},
        {"next_port", "Array: output port towards every destination router (-1: this router)", ""},
        {"next_port_file", "Instead of next_port: a file of one row per router (num_routers entries of "
                           "next_port_width bytes, unsigned, little-endian, the type's largest value at the router's "
                           "own column) from byte next_port_offset; the router reads its own row", ""},
        {"next_port_offset", "Byte offset of row 0 in next_port_file", "0"},
        {"next_port_width", "Bytes per entry of next_port_file: 1 or 2", "1"},
        {"num_routers", "Routers (entries per row of next_port_file)", "0"},
        {"endpoint_router", "Array: router of every endpoint (parsed once per process for equal values, so a "
                            "shared parameter set keeps one copy)", ""},
        {"endpoint_to_port_map", "This router's endpoints: {endpoint:port, ...}", ""},
        {"tree_ports", "Array: this router's ports on a spanning tree (untimed broadcasts)", ""},
    )

    TableTopo(SST::ComponentId_t cid, SST::Params& params, int num_ports, int rtr_id, int num_vns);
    ~TableTopo() override {}

    void route_packet(int port, int vc, SST::Merlin::internal_router_event* ev) override;
    SST::Merlin::internal_router_event* process_input(SST::Merlin::RtrEvent* ev) override;
    std::pair<int, int> getDeliveryPortForEndpointID(int ep_id) override;

    void routeUntimedData(int port, SST::Merlin::internal_router_event* ev, std::vector<int>& outPorts) override;
    SST::Merlin::internal_router_event* process_UntimedData_input(SST::Merlin::RtrEvent* ev) override;

    PortState getPortState(int port) const override;
    int getEndpointID(int port) override;
    void getVCsPerVN(std::vector<int>& vcs_per_vn) override;
    void setOutputBufferCreditArray(int const* array, int vcs) override;
    void setOutputQueueLengthsArray(int const* array, int vcs) override;

private:
    int out_port(int dest_endpoint) const;
    int next_port_of(int router) const;
    void read_row(const std::string& file, size_t offset, int width, int routers);

    int router_id = -1;
    int num_ports = 0;
    int num_vns = 1;
    int num_R2R_ports = 0;
    int num_R2N_ports = 0;
    int num_vcs = 4;      // per VN
    int total_vcs = 4;    // num_vns * num_vcs: the stride of the credit array
    bool downstream = false;       // vc_credits: pick by the queue lengths, else by the output credits
    int const* credits = nullptr;  // hr_router's output-buffer credits, [port * total_vcs + vc]
    int const* queued = nullptr;   // hr_router's output queue lengths, same layout
    // destination router -> output port: `width` bytes per router, kNone at this router
    std::vector<unsigned char> next_port;
    int width = 2;
    int num_routers = 0;
    std::shared_ptr<const std::vector<int>> endpoint_router;  // endpoint -> router (shared)
    std::map<int, int> endpoint_port;  // this router's endpoints -> port
    std::map<int, int> port_endpoint;
    std::vector<int> tree_ports;
};

}  // namespace Topogen

#endif
