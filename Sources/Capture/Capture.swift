/// Capture files: btsnoop, pcap and pcapng readers and writers, and ATT extraction.
public enum Capture {}
