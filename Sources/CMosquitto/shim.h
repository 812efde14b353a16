// Debian's libmosquitto (libmosquitto-dev): the MQTT 5 client library MQTTClient drives.
#include <mosquitto.h>
#include <mqtt_protocol.h>
