// topogen's SST endpoint: Bernoulli packet arrivals, measured as BookSim and topogen's
// reference simulator measure them.  topogen's own code (MIT, like topogen), written
// against SST-Core's public SimpleNetwork interface; see docs/sst.md, "topogen's
// endpoint (topogen.bernoulli_nic)".
#ifndef TOPOGEN_BERNOULLI_NIC_H
#define TOPOGEN_BERNOULLI_NIC_H

#include <sst/core/component.h>
#include <sst/core/event.h>
#include <sst/core/output.h>
#include <sst/core/interfaces/simpleNetwork.h>
#include <sst/core/rng/mersenne.h>

#include <deque>
#include <vector>

namespace Topogen {

// The payload of one packet: its creation cycle travels with it (no global table).
class PacketStamp : public SST::Event {
public:
    PacketStamp() : SST::Event(), created(0), injected(0) {}
    PacketStamp(uint64_t created, uint64_t injected) : SST::Event(), created(created), injected(injected) {}

    uint64_t created;   // cycle of the Bernoulli draw that made the packet
    uint64_t injected;  // cycle it was handed to the network interface

    void serialize_order(SST::Core::Serialization::serializer& ser) override
    {
        SST::Event::serialize_order(ser);
        SST_SER(created);
        SST_SER(injected);
    }
    ImplementSerializable(Topogen::PacketStamp)
};

class BernoulliNic : public SST::Component {
public:
    SST_ELI_REGISTER_COMPONENT(BernoulliNic, "topogen", "bernoulli_nic", SST_ELI_ELEMENT_VERSION(1, 0, 0),
        "Bernoulli packet source and sink measuring creation-to-tail latency (topogen)",
        COMPONENT_CATEGORY_NETWORK)

    SST_ELI_DOCUMENT_PARAMS(
        {"num_peers", "Number of endpoints in the network", "0"},
        {"cycle", "Cycle: one flit time on a link (e.g. 2666ps)", "2666ps"},
        {"load", "Offered load in flits per endpoint per cycle (0..1]", "0.1"},
        {"packet_flits", "Flits per packet", "33"},
        {"flit_bits", "Bits per flit", "256"},
        {"seed", "Run seed; endpoint e draws from MersenneRNG(mix(seed, e))", "1"},
        {"pattern", "uniform or table", "uniform"},
        {"self_packets", "uniform: the source is a possible destination", "true"},
        {"dest_table", "table: destination of every endpoint (-1: does not send)", ""},
        {"warmup_cycles", "Cycles before the measurement window", "3751"},
        {"collect_cycles", "Cycles of the measurement window", "15004"},
        {"drain_cycles", "Cycles after the window for its packets to arrive", "7502"},
        {"results_path", "Append the result line to <results_path>.<MPI rank> instead of stdout (several ranks "
                         "share one output stream, which may cut a line)", ""},
    )

    SST_ELI_DOCUMENT_SUBCOMPONENT_SLOTS(
        {"networkIF", "Network interface", "SST::Interfaces::SimpleNetwork"})

    BernoulliNic(SST::ComponentId_t id, SST::Params& params);
    ~BernoulliNic() override;

    void init(unsigned int phase) override;
    void setup() override;
    void complete(unsigned int phase) override;
    void finish() override;

    BernoulliNic() : SST::Component() {}  // for serialization
    void serialize_order(SST::Core::Serialization::serializer& ser) override;
    ImplementSerializable(Topogen::BernoulliNic)

private:
    bool tick(SST::Cycle_t cycle);
    bool receive(int vn);
    void send_queued(uint64_t now);
    uint64_t draw_destination();
    double now_cycles();

    SST::Output out;
    std::string results_path;
    SST::Interfaces::SimpleNetwork* link_if = nullptr;
    SST::RNG::MersenneRNG* rng = nullptr;
    SST::TimeConverter ps_tc;
    uint64_t cycle_ps = 2666;

    int64_t num_peers = 0;
    int64_t id = -1;
    double packet_prob = 0.0;
    int packet_flits = 33;
    int packet_bits = 33 * 256;
    uint64_t seed = 1;
    bool uniform = true;
    bool self_packets = true;
    std::vector<int64_t> dest_table;
    uint64_t window_start = 0, window_end = 0, end_cycle = 0;

    std::deque<uint64_t> queue_created;  // the source queue: creation cycles
    std::deque<int64_t> queue_dest;
    bool done = false;

    // measurement (see finish())
    uint64_t created_window = 0, delivered_window = 0, created_total = 0;
    uint64_t injected_flits_window = 0, accepted_flits_window = 0;
    uint64_t max_queue = 0, queue_at_window_end = 0;
    double latency_sum = 0.0, latency_sumsq = 0.0, latency_max = 0.0, latency_min = -1.0;
    double network_latency_sum = 0.0;
};

}  // namespace Topogen

#endif
