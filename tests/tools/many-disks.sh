#!/bin/sh
# Give a copied fixture root (modern) N more virtio disks, vdaa, vdab, ...,
# each a copy of vda (its queue, mq-deadline tunables, bdi, serial) with its
# own device number (254:16*i), listed in /sys/block, /sys/class/block,
# /sys/dev/block, /proc/partitions and /proc/diskstats: the Knobs screen's
# cost with many disks is measured on it.
#   many-disks.sh ROOT N
root=$1 n=$2
parent=sys/devices/pci0000:00/0000:00:04.0/virtio2/block
letters=abcdefghijklmnopqrstuvwxyz
i=1
while [ "$i" -le "$n" ]; do
    a=$(( (i - 1) / 26 + 1 )) b=$(( (i - 1) % 26 + 1 ))
    name=vd$(echo $letters | cut -c$a)$(echo $letters | cut -c$b)
    minor=$((16 * i))
    cp -a "$root/$parent/vda" "$root/$parent/$name"
    echo "254:$minor" > "$root/$parent/$name/dev"
    echo "fixture-$name" > "$root/$parent/$name/serial"
    cp -a "$root/sys/devices/virtual/bdi/254:0" "$root/sys/devices/virtual/bdi/254:$minor"
    rm "$root/$parent/$name/bdi"
    ln -s "../../../../../virtual/bdi/254:$minor" "$root/$parent/$name/bdi"
    ln -s "../devices/pci0000:00/0000:00:04.0/virtio2/block/$name" "$root/sys/block/$name"
    ln -s "../../devices/pci0000:00/0000:00:04.0/virtio2/block/$name" "$root/sys/class/block/$name"
    ln -s "../../devices/pci0000:00/0000:00:04.0/virtio2/block/$name" "$root/sys/dev/block/254:$minor"
    printf ' 254 %7d   67108864 %s\n' "$minor" "$name" >> "$root/proc/partitions"
    printf ' 254 %7d %s 10212 311 812034 9120 4410 1202 203112 5521 0 9832 14641 0 0 0 0 612 230\n' "$minor" "$name" >> "$root/proc/diskstats"
    i=$((i + 1))
done
