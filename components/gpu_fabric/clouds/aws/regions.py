"""The regions of AWS (data; the provider checks ``location`` against it).

Source: regions of the pinned provider SDK, ``pulumi_aws.Region`` (pulumi-aws
7.51.1, ``pulumi_aws/_enums.py``). Zone letters are mapped per account, so a
zone is the region plus one letter (Local and Wavelength Zones hold no GPU
fabric machines). When AWS opens a region, add it here with its source.
"""

from __future__ import annotations

AWS_REGIONS: frozenset[str] = frozenset({
    "af-south-1", "ap-east-1", "ap-east-2", "ap-northeast-1", "ap-northeast-2",
    "ap-northeast-3", "ap-south-1", "ap-south-2", "ap-southeast-1", "ap-southeast-2",
    "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-6",
    "ap-southeast-7", "ca-central-1", "ca-west-1", "eu-central-1", "eu-central-2",
    "eu-north-1", "eu-south-1", "eu-south-2", "eu-west-1", "eu-west-2", "eu-west-3",
    "il-central-1", "me-central-1", "me-south-1", "mx-central-1", "sa-east-1",
    "us-east-1", "us-east-2", "us-west-1", "us-west-2", "cn-north-1", "cn-northwest-1",
    "eusc-de-east-1", "us-gov-east-1", "us-gov-west-1", "us-iso-east-1", "us-iso-west-1",
    "us-isob-east-1", "us-isob-west-1", "eu-isoe-west-1", "us-isof-east-1",
    "us-isof-south-1",
})

# A zone is the region plus a letter; no region has more than six Availability Zones
# (us-east-1, the largest, has use1-az1 to use1-az6: us-east-1a to us-east-1f; AWS docs,
# "Regions and Zones", https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-regions-availability-zones.html).
# Letters are mapped per account, so which of these a region offers is the account's;
# a letter past f is no zone anywhere (issue 36: us-east-1z was accepted).
AWS_ZONE_LETTERS = "abcdef"
