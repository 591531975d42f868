// topogen's SST endpoint, topogen.bernoulli_nic: see bernoulli_nic.h and docs/sst.md.
//
// Every cycle (one flit time) the endpoint makes a packet with probability load / S (S =
// flits per packet), from its own Mersenne-Twister stream seeded from (seed, endpoint id):
// Bernoulli arrivals, as BookSim's and topogen's reference simulator.  A new packet joins
// an unbounded source queue stamped with its creation cycle; the head of the queue goes to
// the network interface as soon as the interface has room for a whole packet.  merlin
// delivers a packet when its head arrives; its tail follows S - 1 cycles later on a link
// of one flit per cycle, so latency = (head arrival - creation) + S - 1 cycles: creation
// to tail, source queueing included, as BookSim and the reference simulator define it.
//
// Measurement (BookSim's scheme): warm-up cycles, then a window of collect cycles; the
// packets created in the window are measured, and the run goes on for drain cycles so
// that they can arrive.  finish() prints one line per endpoint (key=value pairs, see
// print_line) that topogen's driver sums over the endpoints.
#include <sst/core/sst_config.h>
#include "bernoulli_nic.h"

#include <sst/core/params.h>
#include <cstdio>
#include <map>
#include <string>

#include <cinttypes>

using namespace SST;
using namespace Topogen;

namespace {

// splitmix64: spreads (seed, endpoint) over the 32-bit seed MersenneRNG takes
uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

}  // namespace

BernoulliNic::BernoulliNic(ComponentId_t cid, Params& params) : Component(cid)
{
    out.init("", 0, 0, Output::STDOUT);
    num_peers = params.find<int64_t>("num_peers", 0);
    results_path = params.find<std::string>("results_path", "");
    if (num_peers < 1) out.fatal(CALL_INFO, -1, "topogen.bernoulli_nic: num_peers must be >= 1\n");
    double load = params.find<double>("load", 0.1);
    packet_flits = params.find<int>("packet_flits", 33);
    int flit_bits = params.find<int>("flit_bits", 256);
    if (packet_flits < 1 || flit_bits < 1 || !(load > 0.0) || load > 1.0)
        out.fatal(CALL_INFO, -1, "topogen.bernoulli_nic: need packet_flits, flit_bits >= 1 and 0 < load <= 1\n");
    packet_bits = packet_flits * flit_bits;
    packet_prob = load / packet_flits;
    seed = params.find<uint64_t>("seed", 1);
    std::string pattern = params.find<std::string>("pattern", "uniform");
    self_packets = params.find<bool>("self_packets", true);
    if (pattern == "table") {
        uniform = false;
        params.find_array<int64_t>("dest_table", dest_table);
        if ((int64_t)dest_table.size() != num_peers)
            out.fatal(CALL_INFO, -1, "topogen.bernoulli_nic: dest_table has %zu entries for %" PRId64 " endpoints\n",
                      dest_table.size(), num_peers);
    } else if (pattern != "uniform") {
        out.fatal(CALL_INFO, -1, "topogen.bernoulli_nic: pattern must be uniform or table, got %s\n", pattern.c_str());
    }
    if (uniform && !self_packets && num_peers < 2)
        out.fatal(CALL_INFO, -1, "topogen.bernoulli_nic: uniform without self packets needs 2 endpoints\n");
    window_start = params.find<uint64_t>("warmup_cycles", 3751);
    window_end = window_start + params.find<uint64_t>("collect_cycles", 15004);
    end_cycle = window_end + params.find<uint64_t>("drain_cycles", 7502);

    UnitAlgebra cycle = params.find<UnitAlgebra>("cycle", "2666ps");
    if (!cycle.hasUnits("s")) out.fatal(CALL_INFO, -1, "topogen.bernoulli_nic: cycle must be a time (2666ps)\n");
    cycle_ps = (cycle / UnitAlgebra("1ps")).getRoundedValue();
    ps_tc = registerTimeBase("1ps", false);

    link_if = loadUserSubComponent<Interfaces::SimpleNetwork>("networkIF", ComponentInfo::SHARE_NONE, 1);
    if (!link_if) out.fatal(CALL_INFO, -1, "topogen.bernoulli_nic: the networkIF subcomponent is missing\n");
    link_if->setNotifyOnReceive(new Interfaces::SimpleNetwork::Handler<BernoulliNic, &BernoulliNic::receive>(this));

    registerAsPrimaryComponent();
    primaryComponentDoNotEndSim();
    registerClock(cycle, new Clock::Handler<BernoulliNic, &BernoulliNic::tick>(this), false);
}

BernoulliNic::~BernoulliNic() { delete rng; }

void BernoulliNic::init(unsigned int phase)
{
    link_if->init(phase);
    if (id < 0 && link_if->isNetworkInitialized()) {
        id = link_if->getEndpointID();
        rng = new RNG::MersenneRNG((unsigned int)(mix64(mix64(seed) ^ (uint64_t)id) >> 32));
    }
}

void BernoulliNic::setup() { link_if->setup(); }

void BernoulliNic::complete(unsigned int phase) { link_if->complete(phase); }

double BernoulliNic::now_cycles() { return (double)getCurrentSimTime(ps_tc) / (double)cycle_ps; }

uint64_t BernoulliNic::draw_destination()
{
    uint64_t n = (uint64_t)(self_packets ? num_peers : num_peers - 1);
    uint64_t d = ((uint64_t)rng->generateNextUInt32() * n) >> 32;  // uniform on 0..n-1
    if (!self_packets && d >= (uint64_t)id) d++;
    return d;
}

bool BernoulliNic::tick(Cycle_t)
{
    uint64_t now = getCurrentSimTime(ps_tc) / cycle_ps;  // the clock ticks on whole cycles
    if (now >= end_cycle) {
        done = true;
        primaryComponentOKToEndSim();
        return true;  // stop the clock
    }
    // the Bernoulli draw of this cycle (a host with no destination draws too, so that its
    // stream does not depend on the pattern)
    double u = (double)rng->generateNextUInt32() * (1.0 / 4294967296.0);
    if (u < packet_prob) {
        int64_t dest = uniform ? (int64_t)draw_destination() : dest_table[id];
        if (dest >= 0) {
            queue_created.push_back(now);
            queue_dest.push_back(dest);
            created_total++;
            if (now >= window_start && now < window_end) created_window++;
        }
    }
    send_queued(now);
    if (queue_created.size() > max_queue) max_queue = queue_created.size();
    if (now + 1 == window_end) queue_at_window_end = queue_created.size();
    return false;
}

void BernoulliNic::send_queued(uint64_t now)
{
    while (!queue_created.empty() && link_if->spaceToSend(0, packet_bits)) {
        auto* stamp = new PacketStamp(queue_created.front(), now);
        auto* req = new Interfaces::SimpleNetwork::Request(queue_dest.front(), id, packet_bits, true, true, stamp);
        link_if->send(req, 0);
        queue_created.pop_front();
        queue_dest.pop_front();
        if (now >= window_start && now < window_end) injected_flits_window += packet_flits;
    }
}

bool BernoulliNic::receive(int vn)
{
    Interfaces::SimpleNetwork::Request* req = link_if->recv(vn);
    if (!req) return true;
    if (req->dest != id)
        out.fatal(CALL_INFO, -1, "topogen.bernoulli_nic: endpoint %" PRId64 " got a packet for %" PRI_NID "\n", id,
                  req->dest);
    auto* stamp = static_cast<PacketStamp*>(req->inspectPayload());
    double head = now_cycles();
    if (head >= (double)window_start && head < (double)window_end) accepted_flits_window += packet_flits;
    if (stamp && stamp->created >= window_start && stamp->created < window_end) {
        // merlin hands the packet over at its head; the tail is S - 1 flit times behind
        double tail = head + (double)(packet_flits - 1);
        double lat = tail - (double)stamp->created;
        delivered_window++;
        latency_sum += lat;
        latency_sumsq += lat * lat;
        if (lat > latency_max) latency_max = lat;
        if (latency_min < 0 || lat < latency_min) latency_min = lat;
        network_latency_sum += tail - (double)stamp->injected;
    }
    delete req;
    return true;
}

void BernoulliNic::finish()
{
    link_if->finish();
    int active = uniform || dest_table[id] >= 0;
    char line[1024];
    snprintf(line, sizeof line, "topogen.bernoulli_nic ep=%" PRId64 " active=%d created=%" PRIu64 " created_window=%" PRIu64
               " delivered_window=%" PRIu64 " latency_sum=%.17g latency_sumsq=%.17g latency_min=%.17g"
               " latency_max=%.17g network_latency_sum=%.17g injected_flits_window=%" PRIu64
               " accepted_flits_window=%" PRIu64 " max_queue=%" PRIu64 " queue_at_window_end=%" PRIu64
               " queue_end=%zu\n",
               id, active, created_total, created_window, delivered_window, latency_sum, latency_sumsq,
               latency_min < 0 ? 0.0 : latency_min, latency_max, network_latency_sum, injected_flits_window,
               accepted_flits_window, max_queue, queue_at_window_end, queue_created.size());
    if (results_path.empty()) {
        out.output("%s", line);
        return;
    }
    // one file per rank: the endpoints of a rank share this process, so their lines never mix
    static std::map<std::string, FILE*> files;
    std::string name = results_path + "." + std::to_string(getRank().rank);
    FILE*& fh = files[name];
    if (!fh) fh = fopen(name.c_str(), "a");
    if (!fh) out.fatal(CALL_INFO, -1, "topogen.bernoulli_nic: cannot open %s for the results\n", name.c_str());
    fputs(line, fh);
    fflush(fh);
}

void BernoulliNic::serialize_order(SST::Core::Serialization::serializer& ser)
{
    Component::serialize_order(ser);
    SST_SER(out);
    SST_SER(link_if);
    SST_SER(rng);
    SST_SER(ps_tc);
    SST_SER(cycle_ps);
    SST_SER(num_peers);
    SST_SER(id);
    SST_SER(packet_prob);
    SST_SER(packet_flits);
    SST_SER(packet_bits);
    SST_SER(seed);
    SST_SER(uniform);
    SST_SER(self_packets);
    SST_SER(dest_table);
    SST_SER(window_start);
    SST_SER(window_end);
    SST_SER(end_cycle);
    SST_SER(queue_created);
    SST_SER(queue_dest);
    SST_SER(done);
    SST_SER(created_window);
    SST_SER(delivered_window);
    SST_SER(created_total);
    SST_SER(injected_flits_window);
    SST_SER(accepted_flits_window);
    SST_SER(max_queue);
    SST_SER(queue_at_window_end);
    SST_SER(latency_sum);
    SST_SER(latency_sumsq);
    SST_SER(latency_max);
    SST_SER(latency_min);
    SST_SER(network_latency_sum);
}
