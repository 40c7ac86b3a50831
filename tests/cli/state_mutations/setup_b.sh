# Host B: devices the doc2 mutations change, keep or find immutable.
ns=$1
ip netns add $ns
ipn() { ip -n $ns "$@"; }
ipn link set lo up
ipn link add d0 address 02:00:00:00:01:01 type veth peer name d0p address 02:00:00:00:01:02
ipn link set d0 up
ipn addr add 10.9.0.1/24 dev d0
ipn addr add 10.9.0.5/24 dev d0
ipn link add br0 address 02:00:00:00:01:03 type bridge stp_state 1
ipn link add p0 address 02:00:00:00:01:04 type veth peer name p0p address 02:00:00:00:01:05
ipn link add p1 address 02:00:00:00:01:06 type veth peer name p1p address 02:00:00:00:01:07
ipn link set p1 master br0
ipn link add br1 address 02:00:00:00:01:08 type bridge stp_state 0
ipn link add vx0 address 02:00:00:00:01:09 type vxlan id 42 dev d0 dstport 4789
ipn link add ve0 address 02:00:00:00:01:0a type veth peer name ve1 address 02:00:00:00:01:0b
ipn link add mv0 link d0 address 02:00:00:00:01:0c type macvlan mode private
ipn link add gone0 address 02:00:00:00:01:0d type veth peer name gone1 address 02:00:00:00:01:0e
ipn route add 10.20.0.0/16 via 10.9.0.254 dev d0 metric 60
ipn route add 10.22.0.0/16 via 10.9.0.254 dev d0
ipn route add 10.23.0.0/16 via 10.9.0.254 dev d0 proto static
ipn rule add from 10.9.0.0/24 pref 1000 table 100
ipn rule add pref 1003 table 101
