# vm-loop.sh — sourced by the benches that tune a loop device's writeback
# (bench/transfer, bench/carry-over): the vm.dirty* values saved and put
# back, and the loop device made as a measurement needs it. POSIX sh.

# vm_save FILE: every vm.dirty* value as it is now.
vm_save() {
    : > "$1"
    for f in /proc/sys/vm/dirty_*; do echo "$f $(cat "$f")" >> "$1"; done
}

# vm_restore FILE: each value back; of each ratio/bytes pair only the half
# that was in force (writing the other would switch the pair over).
vm_restore() {
    while read -r f v; do
        case $f in *_bytes|*_ratio) ;; *) echo "$v" > "$f" ;; esac
    done < "$1"
    for pair in dirty dirty_background; do
        b=$(awk -v f=/proc/sys/vm/${pair}_bytes '$1 == f { print $2 }' "$1")
        r=$(awk -v f=/proc/sys/vm/${pair}_ratio '$1 == f { print $2 }' "$1")
        if [ "$b" != 0 ]; then echo "$b" > /proc/sys/vm/${pair}_bytes; else echo "$r" > /proc/sys/vm/${pair}_ratio; fi
    done
}

# loop_make IMG SIZE MNT: an ext4 loop device on IMG, mounted at MNT; sets
# loop (the device, for losetup -d). Non-zero on failure.
# - the image written whole: a sparse one pays for the outer filesystem's
#   allocation the first time a region is written, so a file laid out on
#   fresh blocks ran slower than one on reused blocks. fallocate alone is
#   not enough: its extents are unwritten (converted on first write), and
#   mkfs.ext4 discards the whole device, which the loop driver turns into
#   holes punched in the image (a 1 GiB fallocated image was 49 MiB after
#   mkfs): hence zeros written, and nodiscard;
# - direct I/O on the backing file: the loop device's writes reach the
#   disk, not a second page cache that the dirty limits also count;
# - inode tables and journal zeroed now (lazy init writes in the
#   background for minutes, under the first runs).
loop_make() {
    dd if=/dev/zero of="$1" bs=16M count=$(( $(numfmt --from=iec "$2") / 16777216 )) oflag=direct conv=fsync status=none &&
        loop=$(losetup -f --show --direct-io=on "$1" 2>/dev/null || losetup -f --show "$1") &&
        mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0,nodiscard "$loop" && mkdir "$3" && mount "$loop" "$3"
}
