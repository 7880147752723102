
Ì€€¨±ãŸçË"COUNTERS_DB"°
$

COUNTERS

Ethernet68
Queues‡Z„{
    "Ethernet68:0": {},
    "Ethernet68:1": {
        "SAI_QUEUE_STAT_BYTES": "0",
        "SAI_QUEUE_STAT_DROPPED_BYTES": "0",
        "SAI_QUEUE_STAT_DROPPED_PACKETS": "0",
        "SAI_QUEUE_STAT_PACKETS": "0",
        "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "64"
    },
    "Ethernet68:10": {},
    "Ethernet68:11": {},
    "Ethernet68:12": {},
    "Ethernet68:13": {},
    "Ethernet68:14": {},
    "Ethernet68:15": {},
    "Ethernet68:16": {},
    "Ethernet68:17": {},
    "Ethernet68:18": {},
    "Ethernet68:19": {},
    "Ethernet68:2": {},
    "Ethernet68:3": {
        "PFC_WD_ACTION": "drop",
        "PFC_WD_DETECTION_TIME": "200000",
        "PFC_WD_DETECTION_TIME_LEFT": "200000",
        "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "0",
        "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": "0",
        "PFC_WD_RESTORATION_TIME": "200000",
        "PFC_WD_STATUS": "operational",
        "SAI_QUEUE_ATTR_PAUSE_STATUS": "false",
        "SAI_QUEUE_ATTR_PAUSE_STATUS_last": "false",
        "SAI_QUEUE_STAT_BYTES": "0",
        "SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES": "0",
        "SAI_QUEUE_STAT_DROPPED_BYTES": "0",
        "SAI_QUEUE_STAT_DROPPED_PACKETS": "0",
        "SAI_QUEUE_STAT_PACKETS": "0",
        "SAI_QUEUE_STAT_PACKETS_last": "0"
    },
    "Ethernet68:4": {
        "PFC_WD_ACTION": "drop",
        "PFC_WD_DETECTION_TIME": "200000",
        "PFC_WD_DETECTION_TIME_LEFT": "200000",
        "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "0",
        "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": "0",
        "PFC_WD_RESTORATION_TIME": "200000",
        "PFC_WD_STATUS": "operational",
        "SAI_QUEUE_ATTR_PAUSE_STATUS": "false",
        "SAI_QUEUE_ATTR_PAUSE_STATUS_last": "false",
        "SAI_QUEUE_STAT_BYTES": "0",
        "SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES": "0",
        "SAI_QUEUE_STAT_DROPPED_BYTES": "0",
        "SAI_QUEUE_STAT_DROPPED_PACKETS": "0",
        "SAI_QUEUE_STAT_PACKETS": "0",
        "SAI_QUEUE_STAT_PACKETS_last": "0"
    },
    "Ethernet68:5": {},
    "Ethernet68:6": {},
    "Ethernet68:7": {},
    "Ethernet68:8": {},
    "Ethernet68:9": {},
    "Ethernet68:1:periodic": {
        "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "192"
    }
}