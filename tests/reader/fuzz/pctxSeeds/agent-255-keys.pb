
}

service.name

checkout
=
service.instance.id&
$0b4f6bde-57a5-4c3c-9a59-3e4cbb1b4b4f
 
telemetry.sdk.language
java.
threadlocal.schema_version
tlsdesc_v1_dev¬
threadlocal.attribute_key_mapŠ*‡

key.0

key.1

key.2

key.3

key.4

key.5

key.6

key.7

key.8

key.9

key.10

key.11

key.12

key.13

key.14

key.15

key.16

key.17

key.18

key.19

key.20

key.21

key.22

key.23

key.24

key.25

key.26

key.27

key.28

key.29

key.30

key.31

key.32

key.33

key.34

key.35

key.36

key.37

key.38

key.39

key.40

key.41

key.42

key.43

key.44

key.45

key.46

key.47

key.48

key.49

key.50

key.51

key.52

key.53

key.54

key.55

key.56

key.57

key.58

key.59

key.60

key.61

key.62

key.63

key.64

key.65

key.66

key.67

key.68

key.69

key.70

key.71

key.72

key.73

key.74

key.75

key.76

key.77

key.78

key.79

key.80

key.81

key.82

key.83

key.84

key.85

key.86

key.87

key.88

key.89

key.90

key.91

key.92

key.93

key.94

key.95

key.96

key.97

key.98

key.99
	
key.100
	
key.101
	
key.102
	
key.103
	
key.104
	
key.105
	
key.106
	
key.107
	
key.108
	
key.109
	
key.110
	
key.111
	
key.112
	
key.113
	
key.114
	
key.115
	
key.116
	
key.117
	
key.118
	
key.119
	
key.120
	
key.121
	
key.122
	
key.123
	
key.124
	
key.125
	
key.126
	
key.127
	
key.128
	
key.129
	
key.130
	
key.131
	
key.132
	
key.133
	
key.134
	
key.135
	
key.136
	
key.137
	
key.138
	
key.139
	
key.140
	
key.141
	
key.142
	
key.143
	
key.144
	
key.145
	
key.146
	
key.147
	
key.148
	
key.149
	
key.150
	
key.151
	
key.152
	
key.153
	
key.154
	
key.155
	
key.156
	
key.157
	
key.158
	
key.159
	
key.160
	
key.161
	
key.162
	
key.163
	
key.164
	
key.165
	
key.166
	
key.167
	
key.168
	
key.169
	
key.170
	
key.171
	
key.172
	
key.173
	
key.174
	
key.175
	
key.176
	
key.177
	
key.178
	
key.179
	
key.180
	
key.181
	
key.182
	
key.183
	
key.184
	
key.185
	
key.186
	
key.187
	
key.188
	
key.189
	
key.190
	
key.191
	
key.192
	
key.193
	
key.194
	
key.195
	
key.196
	
key.197
	
key.198
	
key.199
	
key.200
	
key.201
	
key.202
	
key.203
	
key.204
	
key.205
	
key.206
	
key.207
	
key.208
	
key.209
	
key.210
	
key.211
	
key.212
	
key.213
	
key.214
	
key.215
	
key.216
	
key.217
	
key.218
	
key.219
	
key.220
	
key.221
	
key.222
	
key.223
	
key.224
	
key.225
	
key.226
	
key.227
	
key.228
	
key.229
	
key.230
	
key.231
	
key.232
	
key.233
	
key.234
	
key.235
	
key.236
	
key.237
	
key.238
	
key.239
	
key.240
	
key.241
	
key.242
	
key.243
	
key.244
	
key.245
	
key.246
	
key.247
	
key.248
	
key.249
	
key.250
	
key.251
	
key.252
	
key.253
	
key.254